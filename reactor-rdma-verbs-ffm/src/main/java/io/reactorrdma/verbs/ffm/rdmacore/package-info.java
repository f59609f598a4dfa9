/**
 * rdma-core's libibverbs called through FFM (its connection manager is in {@code cm}), one class per verbs object:
 * {@link io.reactorrdma.verbs.ffm.rdmacore.Libibverbs}
 * (the library and its device list), {@link io.reactorrdma.verbs.ffm.rdmacore.RdmaDevice} (an opened device, its
 * capabilities and ports), {@link io.reactorrdma.verbs.ffm.rdmacore.RdmaPd} and {@link io.reactorrdma.verbs.ffm.rdmacore.RdmaMr}
 * (registered memory), {@link io.reactorrdma.verbs.ffm.rdmacore.RdmaCompletionChannel} and
 * {@link io.reactorrdma.verbs.ffm.rdmacore.RdmaCq} (completions and their events), and
 * {@link io.reactorrdma.verbs.ffm.rdmacore.RdmaQp} with its work-request chains built once in native memory. The data
 * path (poll, arm, post) calls the device's operation table as verbs.h's inline functions do, without allocating.
 * rdma-core's failures become errors that say what to do: a missing library, a kernel without RDMA support, no
 * device, a device this user may not open, the memlock limit, a queue pair used out of order.
 */
package io.reactorrdma.verbs.ffm.rdmacore;
