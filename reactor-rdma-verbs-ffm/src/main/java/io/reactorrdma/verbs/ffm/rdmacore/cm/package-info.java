/**
 * rdma-core's connection manager (librdmacm) through FFM: {@link io.reactorrdma.verbs.ffm.rdmacore.cm.Librdmacm},
 * its event channel (a real descriptor; {@link io.reactorrdma.verbs.ffm.rdmacore.cm.CmEventChannel}) and CM ids
 * ({@link io.reactorrdma.verbs.ffm.rdmacore.cm.CmId}: bind, listen, resolve, connect, accept or reject with private
 * data, disconnect), each step answered by an event, as librdmacm's asynchronous calls are.
 */
package io.reactorrdma.verbs.ffm.rdmacore.cm;
