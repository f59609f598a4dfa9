package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.config.IdleStrategy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A loopback client and a server that releases and counts what it receives: the fixture of the
 * allocation tests, which stream one 64 B registered message by reference through
 * {@link RdmaConnection#sendNow} and measure a thread's allocated bytes.
 */
final class CountingSinkPair implements AutoCloseable {

    /** The sender keeps at most this many messages ahead of what the server has read. */
    private static final int AHEAD = 256;

    private final AtomicLong received = new AtomicLong();
    private final RdmaResources serverResources;
    private final RdmaResources clientResources;
    private final DisposableRdmaServer server;
    private final RdmaConnection client;
    private final ByteBuf message;
    private long sent;

    /** {@code name} prefixes both sides' resources: the server's I/O threads are {@code <name>-server-io-*}. */
    CountingSinkPair(String name) {
        serverResources = RdmaResources.builder(name + "-server").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        clientResources = RdmaResources.builder(name + "-client").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        server = RdmaServer.create().port(0).runOn(serverResources).handleConnection(c -> {
            c.receive().subscribe(b -> {
                b.release();
                received.incrementAndGet();
            });
            return c.onDispose();
        }).bindNow(Duration.ofSeconds(30));
        client = RdmaClient.create().port(server.port()).runOn(clientResources).connectNow(Duration.ofSeconds(30));
        message = client.alloc().directBuffer(64, 64).writeZero(64);
    }

    /**
     * Sends {@code n} references to the message, at most {@link #AHEAD} ahead of the server. The
     * leak detector (paranoid in tests) records a stack trace per retain of its wrapper, so this
     * sends the buffer under it, whose last reference the wrapper still releases at close.
     *
     * @return messages sent so far
     */
    long send(int n) {
        ByteBuf raw = message.unwrap() != null ? message.unwrap() : message;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (int i = 0; i < n; i++) {
            while (sent - received.get() >= AHEAD) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the server read " + received.get() + " of " + sent + " messages within 60 s");
                }
                Thread.onSpinWait();
            }
            if (!client.sendNow(raw.retain())) {
                throw new AssertionError("the connection closed after " + sent + " messages");
            }
            sent++;
        }
        return sent;
    }

    /** Waits (bounded) until the server has read everything sent. */
    void awaitReceived() {
        Eventually.until(() -> received.get() == sent);
    }

    /** Releases the message, closes both sides and checks that neither allocator has a live buffer. */
    @Override
    public void close() {
        message.release();
        client.dispose();
        server.disposeNow(Duration.ofSeconds(10));
        clientResources.dispose();
        serverResources.dispose();
        assertThat(clientResources.allocator().liveBuffers()).as("client live buffers").isZero();
        assertThat(serverResources.allocator().liveBuffers()).as("server live buffers").isZero();
    }
}
