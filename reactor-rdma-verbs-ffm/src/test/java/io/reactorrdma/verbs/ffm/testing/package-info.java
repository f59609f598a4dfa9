/** Test support: the emulated rdma-core, built from C by the tests. */
package io.reactorrdma.verbs.ffm.testing;
