/**
 * The hardware provider's connection-manager plumbing: the one thread DiSNI's rdma_cm event channel
 * allows ({@link io.reactorrdma.verbs.disni.cm.CmEventLoop}), the routing of its events to a
 * connector or a listener ({@link io.reactorrdma.verbs.disni.cm.CmEvents},
 * {@link io.reactorrdma.verbs.disni.cm.PendingCmEvents},
 * {@link io.reactorrdma.verbs.disni.cm.ListenerCmEvents}), the pairing of a listener's rdma_cm
 * requests with their side-channel hellos ({@link io.reactorrdma.verbs.disni.cm.RequestPairing}),
 * and the TCP side channel that carries the private data stock libdisni cannot
 * ({@link io.reactorrdma.verbs.disni.cm.SideChannel}).
 *
 * <p>Internal to the DiSNI provider: public only so that {@code io.reactorrdma.verbs.disni} (its
 * connector, listener and connections) can use it; no API. Nothing here knows a queue pair.
 */
package io.reactorrdma.verbs.disni.cm;
