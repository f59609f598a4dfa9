package io.reactorrdma.engine;

import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.EngineConfig;
import io.netty.buffer.ByteBuf;
import io.reactorrdma.verbs.work.WrOpcode;
import io.reactorrdma.verbs.soft.fault.CompletionFault;
import io.reactorrdma.verbs.soft.fault.PeerFreeze;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import io.reactorrdma.verbs.soft.fault.SoftFaults;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Teardown: an engine that fails must not return its receive buffers and rendezvous
 * destinations to the pool while the peer may still copy into them. The peer (the client context)
 * is frozen by the soft provider's fault hook after its checks and just before its copy — a DMA
 * under way — and the server engine fails meanwhile; whatever the server allocates next must not
 * receive the late copy, and every buffer comes back once the queue pair is quiet.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EngineTeardownTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void rendezvousDestinationIsNotReusedWhileAFrozenPeerStillWritesIntoIt() throws Exception {
        int size = 200_000; // rendezvous: the first fragment is a plain WRITE into the destination
        // destinations come from a pool per engine; the failed engine's pool closes, so what could
        // receive the late WRITE is a destination pool opened afterwards on the same allocator
        java.util.concurrent.atomic.AtomicReference<io.reactorrdma.memory.RegisteredByteBufAllocator> later =
                new java.util.concurrent.atomic.AtomicReference<>();
        try {
            lateCopyDoesNotLandInReusedMemory(WrOpcode.WRITE, size, (byte) 0xAB, h -> {
                later.compareAndSet(null,
                        new io.reactorrdma.memory.RegisteredByteBufAllocator(h.serverMemory.openDestinationPool("later")));
                return later.get().directBuffer(size, size);
            }, 1);
        } finally {
            if (later.get() != null) {
                later.get().pool().close();
            }
        }
    }

    @Test
    void receiveBuffersAreNotReusedWhileAFrozenPeerStillCopiesASendIntoOne() throws Exception {
        EngineConfig config = EngineConfig.defaults();
        int size = 4000; // eager: one SEND into a posted receive buffer
        lateCopyDoesNotLandInReusedMemory(WrOpcode.SEND, size, (byte) 0xCD,
                h -> h.serverMemory.byteBufAllocator().directBuffer(WireHeader.SIZE + config.eagerSize(false),
                        WireHeader.SIZE + config.eagerSize(false)),
                config.recvQueueDepth());
    }

    /**
     * Freezes the client's next {@code op} mid-copy, fails the server engine, then allocates
     * {@code reallocations} buffers on the server's I/O thread (where the released ones were freed),
     * zeroes them, thaws the client, and checks that none of them received the late copy.
     */
    private void lateCopyDoesNotLandInReusedMemory(WrOpcode op, int size, byte pattern,
                                                   java.util.function.Function<EngineHarness, ByteBuf> allocate,
                                                   int reallocations) throws Exception {
        PeerFreeze freeze = new PeerFreeze();
        AtomicInteger contexts = new AtomicInteger();
        CompletableFuture<EngineSocket> accepted = new CompletableFuture<>();
        Consumer<EngineSocket> acceptor = s -> {
            s.inbound(new EngineSocket.Inbound() {
                @Override
                public void onMessage(ByteBuf message) {
                    message.release();
                }

                @Override
                public void onClose(Throwable error) {
                }
            });
            accepted.complete(s);
        };
        List<ByteBuf> fresh = new ArrayList<>();
        // the harness opens the client's context first: that one is the peer we freeze
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults(), contexts.getAndIncrement() == 0
                ? SoftFaults.none().withPeerFreeze(freeze) : SoftFaults.none()),
                EngineConfig.defaults().withPullRendezvous(false), IdleStrategy.BLOCK, acceptor)) { // WRITE, SEND: the peer copies in
            EngineSocket client = h.client.openSocket(h.address(), WAIT).get(30, TimeUnit.SECONDS);
            Engine serverEngine = accepted.get(30, TimeUnit.SECONDS).engine;
            try {
                freeze.freezeBefore(op);
                ByteBuf msg = h.clientMemory.byteBufAllocator().directBuffer(size);
                byte[] bytes = new byte[size];
                java.util.Arrays.fill(bytes, pattern);
                msg.writeBytes(bytes);
                assertThat(client.offer(msg)).isTrue();
                assertThat(freeze.awaitFrozen(WAIT)).as("the client froze in its " + op).isTrue();

                // read on the I/O thread, in the same turn as the fail: a control message (a heartbeat, a
                // credit return) whose send completes between a read here and the fail is released legitimately
                long liveBeforeFail = onServer(h, () -> {
                    long live = h.serverMemory.liveBuffers();
                    serverEngine.fail(new EngineException("test: the server engine fails while the peer is mid-copy"));
                    return live;
                });
                long liveWhilePeerCopies = h.serverMemory.liveBuffers();
                for (int i = 0; i < reallocations; i++) {
                    fresh.add(onServer(h, () -> {
                        ByteBuf b = allocate.apply(h);
                        b.setZero(0, b.capacity());
                        return b;
                    }));
                }
                freeze.thaw();
                assertThat(freeze.awaitThawed(1, WAIT)).as("the frozen copy finished").isTrue();

                for (ByteBuf b : fresh) {
                    byte[] content = new byte[b.capacity()];
                    b.getBytes(0, content);
                    for (int i = 0; i < content.length; i++) {
                        assertThat(content[i]).as("byte " + i + " of a buffer allocated after the engine failed: the peer's late "
                                + op + " landed in memory the pool handed out again").isNotEqualTo(pattern);
                    }
                }
                assertThat(liveWhilePeerCopies).as("server live buffers while the peer still copies (before the fail: " + liveBeforeFail
                        + ")").isEqualTo(liveBeforeFail);
                awaitTrue(() -> h.serverMemory.liveBuffers() == fresh.size(), "the server engine releases its buffers once quiet ("
                        + h.serverMemory.liveBuffers() + " live, " + fresh.size() + " of them the test's)");
            } finally {
                freeze.thaw();
                for (ByteBuf b : fresh) {
                    b.release();
                }
            }
        }
    }

    @Test
    void buffersStayWhileTheFlushCompletionsAreDelayedAndReturnWhenTheyArrive() throws Exception {
        CompletionFault fault = new CompletionFault();
        try (Fixture f = new Fixture(fault, EngineConfig.defaults())) {
            long live = f.h.serverMemory.liveBuffers();
            assertThat(live).as("receive buffers, header area and the destination of the message in flight").isGreaterThan(1);
            fault.delay(f.serverEngine.qpNum());
            onServer(f.h, () -> {
                f.serverEngine.fail(new EngineException("test: the server engine fails"));
                return null;
            });
            // nothing can be flushed while the completions are held back: the memory must stay the engine's
            assertThat(onServer(f.h, () -> f.h.server.drainingEngines())).isEqualTo(1);
            assertThat(f.h.serverMemory.liveBuffers()).as("server live buffers before the flushes were seen").isEqualTo(live);
            f.freeze.thaw(); // the peer finishes its copy; the flushes are still held back
            assertThat(f.freeze.awaitThawed(1, WAIT)).isTrue();
            assertThat(onServer(f.h, () -> f.h.server.drainingEngines())).isEqualTo(1);
            assertThat(f.h.serverMemory.liveBuffers()).as("server live buffers before the flushes were seen").isEqualTo(live);
            fault.deliver();
            awaitTrue(() -> f.h.serverMemory.liveBuffers() == 0, "the server releases everything once the flushes arrive ("
                    + f.h.serverMemory.liveBuffers() + " live)");
            assertThat(onServer(f.h, () -> f.h.server.drainingEngines())).isZero();
        }
    }

    @Test
    void aQueuePairThatNeverFlushesIsDestroyedAndReleasedAfterTheDrainTimeout() throws Exception {
        CompletionFault fault = new CompletionFault();
        try (Fixture f = new Fixture(fault, EngineConfig.defaults().withDrainTimeout(Duration.ofMillis(300)))) {
            fault.drop(f.serverEngine.qpNum()); // a broken provider: no flush ever comes
            onServer(f.h, () -> {
                f.serverEngine.fail(new EngineException("test: the server engine fails"));
                return null;
            });
            f.freeze.thaw(); // the peer is done: only the missing flushes keep the engine draining now
            // no flush can reach the engine, so only the drain timeout can release its memory
            awaitTrue(() -> f.h.serverMemory.liveBuffers() == 0, "released after the drain timeout ("
                    + f.h.serverMemory.liveBuffers() + " live)");
            assertThat(onServer(f.h, () -> f.h.server.drainingEngines())).isZero();
        }
    }

    /**
     * A client and a server engine with one socket, a rendezvous destination answered and not
     * written yet (the client's WRITEs are frozen before they start), and a completion fault on the
     * server's context.
     */
    private static final class Fixture implements AutoCloseable {
        final PeerFreeze freeze = new PeerFreeze();
        final EngineHarness h;
        final Engine serverEngine;

        Fixture(CompletionFault fault, EngineConfig engine) throws Exception {
            EngineConfig config = engine.withPullRendezvous(false); // the WRITE rendezvous's destination is the subject
            AtomicInteger contexts = new AtomicInteger();
            CompletableFuture<EngineSocket> accepted = new CompletableFuture<>();
            h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults(), contexts.getAndIncrement() == 0
                    ? SoftFaults.none().withPeerFreeze(freeze)
                    : SoftFaults.none().withCompletionFault(fault)),
                    config, IdleStrategy.BLOCK, s -> {
                        s.inbound(new EngineSocket.Inbound() {
                            @Override
                            public void onMessage(ByteBuf message) {
                                message.release();
                            }

                            @Override
                            public void onClose(Throwable error) {
                            }
                        });
                        accepted.complete(s);
                    });
            EngineSocket client = h.client.openSocket(h.address(), WAIT).get(30, TimeUnit.SECONDS);
            serverEngine = accepted.get(30, TimeUnit.SECONDS).engine;
            freeze.freezeBefore(WrOpcode.WRITE);
            ByteBuf msg = h.clientMemory.byteBufAllocator().directBuffer(100_000);
            msg.writeZero(100_000);
            assertThat(client.offer(msg)).isTrue();
            assertThat(freeze.awaitFrozen(WAIT)).isTrue();
        }

        @Override
        public void close() {
            freeze.thaw();
            h.close();
        }
    }

    private static <T> T onServer(EngineHarness h, Callable<T> task) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        h.server.execute(() -> {
            try {
                f.complete(task.call());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f.get(30, TimeUnit.SECONDS);
    }

    static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + WAIT.toSeconds() + " s: " + what);
            }
            Thread.sleep(5);
        }
    }
}
