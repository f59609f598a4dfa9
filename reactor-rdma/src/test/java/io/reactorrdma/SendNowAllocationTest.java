package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.engine.IdleStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * {@link RdmaConnection#sendNow} (RSocket's send path) allocates nothing per message on the
 * sending thread in steady state: the socket's queue and the engine's ready queue are linked
 * arrays (a chunk now and then, a few bytes per message on average), not a node per offer.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SendNowAllocationTest {

    /** Messages measured, after as many warming the path up. */
    private static final int MESSAGES = 3_000;
    /** The sender keeps at most this many messages ahead of what the server has read. */
    private static final int AHEAD = 256;
    /**
     * Bytes per message the sending thread may allocate on average: the queue's array chunks come
     * to about 4. A node per offer (24 bytes each, two per message when the socket was idle) is far above.
     */
    private static final double MAX_BYTES_PER_MESSAGE = 12.0;

    private RdmaResources serverResources;
    private RdmaResources clientResources;
    private DisposableRdmaServer server;
    private RdmaConnection client;
    private ByteBuf message;

    @AfterEach
    void stop() {
        if (message != null) message.release();
        if (client != null) client.dispose();
        if (server != null) server.disposeNow(Duration.ofSeconds(10));
        if (clientResources != null) clientResources.dispose();
        if (serverResources != null) serverResources.dispose();
        assertThat(clientResources.allocator().liveBuffers()).as("client live buffers").isZero();
        assertThat(serverResources.allocator().liveBuffers()).as("server live buffers").isZero();
    }

    @Test
    void sendNowAllocatesNoNodePerMessage() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeThat(threads.isThreadAllocatedMemorySupported()).as("per-thread allocation counting").isTrue();
        threads.setThreadAllocatedMemoryEnabled(true);

        AtomicLong received = new AtomicLong();
        serverResources = RdmaResources.builder("server").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        clientResources = RdmaResources.builder("client").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        server = RdmaServer.create().port(0).runOn(serverResources).handleConnection(c -> {
            c.receive().subscribe(b -> {
                b.release();
                received.incrementAndGet();
            });
            return c.onDispose();
        }).bindNow(Duration.ofSeconds(30));
        client = RdmaClient.create().port(server.port()).runOn(clientResources).connectNow(Duration.ofSeconds(30));
        message = client.alloc().directBuffer(64, 64).writeZero(64);
        // The leak detector (paranoid in tests) records a stack trace per retain of its wrapper: send the
        // buffer under it, whose last reference the wrapper still releases in stop()
        ByteBuf raw = message.unwrap() != null ? message.unwrap() : message;

        long sent = send(raw, received, 0, MESSAGES); // warm-up: JIT, queue chunks, thread caches
        long tid = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(tid);
        sent = send(raw, received, sent, MESSAGES);
        long allocated = threads.getThreadAllocatedBytes(tid) - before;

        Eventually.until(() -> received.get() == 2L * MESSAGES);
        assertThat((double) allocated / MESSAGES)
                .as("bytes the sending thread allocated per sendNow (%d in all for %d messages)", allocated, MESSAGES)
                .isLessThan(MAX_BYTES_PER_MESSAGE);
        assertThat(sent).isEqualTo(2L * MESSAGES);
    }

    /** Sends {@code n} references to {@code m}, staying at most {@link #AHEAD} ahead of the server. */
    private long send(ByteBuf m, AtomicLong received, long sent, int n) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (int i = 0; i < n; i++) {
            while (sent - received.get() >= AHEAD) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the server read " + received.get() + " of " + sent + " messages within 60 s");
                }
                Thread.onSpinWait();
            }
            if (!client.sendNow(m.retain())) {
                throw new AssertionError("the connection closed after " + sent + " messages");
            }
            sent++;
        }
        return sent;
    }
}
