package io.reactorrdma.rsocket;

import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.config.IdleStrategy;
import io.rsocket.test.TransportTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RSocket's own conformance suite ({@link TransportTest}) over one fabric in one variant. Each test
 * gets its own client and server {@link RdmaResources}; after TransportTest has closed the pair,
 * both registered allocators must be back to zero live buffers.
 */
abstract class RdmaTransportTestSupport implements TransportTest {

    /** The client's and the server's I/O threads wait for work blocked: CI hosts are oversubscribed. */
    private static final IdleStrategy IDLE = IdleStrategy.BLOCK;
    /** How long released-late frames may take to come back after the close. */
    private static final Duration LEAK_GRACE = Duration.ofMinutes(1);

    private final RdmaResources serverResources;
    private final RdmaResources clientResources;
    private final TransportPair<InetSocketAddress, RdmaServerTransport.Bound> transportPair;
    /** Whether this variant runs TransportTest's two channel load tests (below). */
    private final boolean channelLoad;

    /**
     * @param channelLoad whether to run TransportTest's channel load tests (requestChannel256: 1,024 channels of 256
     *                    payloads each way; requestChannel200_000), 35-65 s a variant on a 2-core host: the shm
     *                    variants plain and resumable (with and without fragmentation) run them, the others leave
     *                    them out to keep the build within its time
     */
    RdmaTransportTestSupport(String provider, boolean fragmentation, boolean resumable, boolean channelLoad) {
        this.channelLoad = channelLoad;
        serverResources = RdmaResources.builder("rsocket-server").provider(provider).threads(1).idle(IDLE).build();
        clientResources = RdmaResources.builder("rsocket-client").provider(provider).threads(1).idle(IDLE).build();
        transportPair = new TransportPair<>(
                () -> new InetSocketAddress("127.0.0.1", 0),
                (address, bound, allocator) -> RdmaClientTransport.create(
                        RdmaClient.create().host("127.0.0.1").port(bound.address().getPort()).runOn(clientResources)),
                (address, allocator) -> RdmaServerTransport.create(
                        RdmaServer.create().host("127.0.0.1").port(0).runOn(serverResources)),
                fragmentation, resumable);
    }

    @Override
    @Test
    @DisplayName("makes 1024 requestChannel requests with 256 payloads (the variants that run the load tests)")
    public void requestChannel256() {
        Assumptions.assumeTrue(channelLoad, "a load test: the shm variants run it");
        TransportTest.super.requestChannel256();
    }

    @Override
    @Test
    @DisplayName("makes 1 requestChannel request with 200,000 payloads (the variants that run the load tests)")
    public void requestChannel200_000() {
        Assumptions.assumeTrue(channelLoad, "a load test: the shm variants run it");
        TransportTest.super.requestChannel200_000();
    }

    @Override
    public Duration getTimeout() {
        return Duration.ofMinutes(3); // as RSocket's own TCP resumable variants; CI hosts are busy
    }

    @Override
    public TransportPair<InetSocketAddress, RdmaServerTransport.Bound> getTransportPair() {
        return transportPair;
    }

    /** TransportTest's own close (interactions end, pair closed, its leak check), then ours. */
    @Override
    @AfterEach
    public void close() {
        try {
            TransportTest.super.close();
        } finally {
            clientResources.dispose();
            serverResources.dispose();
        }
        // RSocket may release frames it kept (a resumable session's stored frames) a little after
        // the close: give it the minute TransportTest's own leak check gives, then insist on zero.
        long deadline = System.nanoTime() + LEAK_GRACE.toNanos();
        while ((clientResources.allocator().liveBuffers() != 0 || serverResources.allocator().liveBuffers() != 0)
                && System.nanoTime() < deadline) {
            sleep();
        }
        assertThat(clientResources.allocator().liveBuffers()).as("client live registered buffers").isZero();
        assertThat(serverResources.allocator().liveBuffers()).as("server live registered buffers").isZero();
    }

    private static void sleep() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for registered buffers to come back", e);
        }
    }
}
