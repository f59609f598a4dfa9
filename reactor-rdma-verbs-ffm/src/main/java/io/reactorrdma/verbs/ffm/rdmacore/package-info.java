/**
 * rdma-core's libraries called through FFM, with rdma-core's failures turned into errors that say what to do:
 * a missing library, a kernel without RDMA support, no device.
 */
package io.reactorrdma.verbs.ffm.rdmacore;
