package io.reactorrdma;

/**
 * What one {@link RdmaResources} holds at one moment ({@link RdmaResources#statistics()}).
 *
 * @param provider        the provider's name ({@code shm}, {@code loopback}, {@code disni})
 * @param device          the device it opened
 * @param threads         I/O threads (thread domains)
 * @param engines         engines (queue pairs to peers) open now
 * @param engineFailures  engines that ended on a lost peer (dead, silent past the heartbeat or peer
 *                        timeout, a transport error) or a protocol error, not on a close, since start
 *                        (meter {@code rdma.engine.failures})
 * @param sockets         sockets (connections) open now
 * @param liveBuffers     buffers of the registered allocator not yet released
 * @param registeredBytes bytes registered with the provider now, every pool together
 */
public record RdmaResourcesStatistics(String provider, String device, int threads, long engines, long engineFailures, long sockets,
                                      long liveBuffers, long registeredBytes) {
}
