package io.reactorrdma.engine;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import io.reactorrdma.verbs.soft.fault.PeerFreeze;
import io.reactorrdma.verbs.soft.fault.SoftFaults;
import io.reactorrdma.verbs.work.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a received message is delivered in: a small one in a buffer of its own (made ready behind the
 * doorbell of the turn before), copied out of its receive buffer (which is posted again as it is), a
 * larger one in the receive buffer itself; and when consumed receives are posted again: behind the
 * doorbell of what the turn sends.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EngineReceiveBufferTest {

    @Test
    void aSmallMessageComesInABufferOfItsSizeALargerOneInItsReceiveBuffer() throws Exception {
        EngineTest.Collector held = new EngineTest.Collector();
        int receiveBuffer = WireHeader.SIZE + EngineConfig.DEFAULT_EAGER_SIZE;
        int small = Engine.COPY_OUT_LIMIT;
        int larger = Engine.COPY_OUT_LIMIT + 1;
        int smallCount = 40; // more than half the receive queue: the copied-out slots are posted again
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults()), EngineConfig.defaults(),
                IdleStrategy.BLOCK, holding(held))) {
            EngineSocket socket = h.client.openSocket(h.address(), Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            List<ByteBuf> received = new ArrayList<>();
            try {
                for (int i = 0; i < smallCount; i++) {
                    assertThat(socket.offer(filled(h, small, i))).isTrue();
                }
                assertThat(socket.offer(filled(h, larger, smallCount))).isTrue();
                for (int i = 0; i <= smallCount; i++) {
                    received.add(held.take(h));
                }
                for (int i = 0; i < smallCount; i++) {
                    ByteBuf m = received.get(i);
                    assertThat(m.readableBytes()).isEqualTo(small);
                    assertThat(m.getByte(m.readerIndex())).isEqualTo((byte) i);
                    assertThat(m.getByte(m.writerIndex() - 1)).isEqualTo((byte) i);
                    assertThat(m.capacity()).as("a %d-byte message's buffer (the receive buffers hold %d)", small, receiveBuffer)
                            .isLessThan(receiveBuffer / 4);
                }
                ByteBuf m = received.get(smallCount);
                assertThat(m.readableBytes()).isEqualTo(larger);
                assertThat(m.getByte(m.writerIndex() - 1)).isEqualTo((byte) smallCount);
                assertThat(m.capacity()).as("a message over the copy limit comes in its receive buffer")
                        .isGreaterThanOrEqualTo(receiveBuffer);
            } finally {
                received.forEach(ByteBuf::release);
            }
            socket.close();
        }
    }

    /**
     * Small messages of changing sizes, one at a time, so that the server makes a buffer ready between them sized by
     * the one before: a smaller one comes in that buffer (room to spare), a larger one in a buffer of its own; each
     * comes whole, within its buffer's limit, and can be copied.
     */
    @Test
    void aMessageOfAnotherSizeNeverStandsPastItsBuffersLimit() throws Exception {
        EngineTest.Collector held = new EngineTest.Collector();
        int[] sizes = {40, 45, 64, 33, 63, 100, 96, 512, 1, 500};
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults()), EngineConfig.defaults(),
                IdleStrategy.BLOCK, holding(held))) {
            EngineSocket socket = h.client.openSocket(h.address(), Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            for (int i = 0; i < sizes.length; i++) {
                assertThat(socket.offer(filled(h, sizes[i], i))).isTrue();
                ByteBuf m = held.take(h);
                try {
                    assertThat(m.readableBytes()).isEqualTo(sizes[i]);
                    assertThat(m.writerIndex()).as("a %d-byte message's end against its buffer's limit", sizes[i])
                            .isLessThanOrEqualTo(m.maxCapacity());
                    boolean fits = i > 0 && sizes[i] <= sizes[i - 1];
                    assertThat(m.capacity()).as("a %d-byte message's buffer (the one before: %d bytes)", sizes[i], i > 0 ? sizes[i - 1] : 0)
                            .isEqualTo(fits ? sizes[i - 1] : sizes[i]);
                    ByteBuf copy = m.copy();
                    assertThat(copy.getByte(copy.writerIndex() - 1)).isEqualTo((byte) i);
                    copy.release();
                } finally {
                    m.release();
                }
            }
            socket.close();
        }
    }

    /**
     * A receive consumed in the turn that answers it is posted again behind the answer's doorbell, not in front of it
     * (where a batch of reposts delayed the answer). The server's I/O thread is held in the post of each echo (its
     * SENDs freeze), where the receive slot of the request it answers must still be free; the ping-pong runs over
     * three receive depths, so the slots did go back, or the client would have run out of credits.
     */
    @Test
    void aConsumedReceiveIsPostedAgainBehindTheDoorbellOfTheAnswer() throws Exception {
        // over three receive depths: the slots did go back, or the client would have run out of credits
        echoWithTheServerHeldInEachPost(3, (server, i) -> {
            int free = server.freeReceiveSlots();
            return () -> assertThat(free)
                    .as("receive slots free while the server posts echo %d (the request's is not posted again yet)", i).isPositive();
        });
    }

    /**
     * A small message is copied into a buffer made ready behind the doorbell of the turn before, not allocated between
     * its arrival and its answer. While the server's I/O thread is held in the post of each echo, the buffer for the
     * next message is not ready yet (making it ready in front of the doorbell would delay the answer), and over the
     * ping-pong only the first message, for which nothing had been made ready, had its buffer allocated on its way.
     */
    @Test
    void aSmallMessageIsCopiedIntoABufferMadeReadyBehindTheDoorbellBefore() throws Exception {
        echoWithTheServerHeldInEachPost(2, (server, i) -> {
            boolean ready = server.copyOut().isReady();
            long onArrival = server.copyOut().allocatedOnArrival();
            return () -> {
                assertThat(ready).as("the buffer for the message after %d made ready in front of the echo's doorbell", i).isFalse();
                assertThat(onArrival).as("messages whose buffer was allocated on their way, up to message %d", i).isEqualTo(1);
            };
        });
    }

    /**
     * A ping-pong of 64-byte messages over {@code depths} receive depths in which the server's I/O thread is held in
     * the post of each echo (its SENDs freeze): {@code whileHeld} reads the server's engine there and returns the
     * check to make once it is let go (a failing check while it is held would leave it frozen).
     */
    private static void echoWithTheServerHeldInEachPost(int depths, BiFunction<Engine, Integer, Runnable> whileHeld) throws Exception {
        PeerFreeze freeze = new PeerFreeze();
        AtomicInteger contexts = new AtomicInteger();
        CompletableFuture<Engine> serverEngine = new CompletableFuture<>();
        Consumer<EngineSocket> echo = EngineHarness.echo();
        // no heartbeat in the test's time: the SEND that freezes is an echo
        EngineConfig config = EngineConfig.defaults().withHeartbeatInterval(Duration.ofMinutes(10));
        Duration wait = Duration.ofSeconds(30);
        // the harness opens the client's context first, then the server's: the server's posters freeze
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults(), contexts.getAndIncrement() == 1
                ? SoftFaults.none().withPeerFreeze(freeze) : SoftFaults.none()), config, IdleStrategy.BLOCK, s -> {
                    echo.accept(s);
                    serverEngine.complete(s.engine);
                })) {
            EngineSocket socket = h.client.openSocket(h.address(), wait).get(30, TimeUnit.SECONDS);
            EngineTest.Collector echoes = new EngineTest.Collector();
            socket.inbound(echoes);
            Engine server = serverEngine.get(30, TimeUnit.SECONDS);
            for (int i = 0; i < depths * config.recvQueueDepth(); i++) {
                freeze.freezeBefore(WrOpcode.SEND);
                assertThat(socket.offer(filled(h, 64, i))).isTrue();
                assertThat(freeze.awaitFrozen(wait)).as("the server posts echo %d", i).isTrue();
                Runnable check = whileHeld.apply(server, i);
                freeze.thaw();
                check.run();
                ByteBuf e = echoes.take(h);
                socket.consumed(1); // the server's allowance for this socket comes back
                try {
                    assertThat(e.readableBytes()).isEqualTo(64);
                    assertThat(e.getByte(e.readerIndex())).isEqualTo((byte) i);
                } finally {
                    e.release();
                }
            }
            socket.close();
        }
    }

    /**
     * A server acceptor that hands every message to {@code held}, granted at once: the test holds the messages, not
     * the socket's window.
     */
    private static Consumer<EngineSocket> holding(EngineTest.Collector held) {
        return s -> s.inbound(new EngineSocket.Inbound() {
            @Override
            public void onMessage(ByteBuf message) {
                s.consumed(1);
                held.onMessage(message);
            }

            @Override
            public void onClose(Throwable error) {
                held.onClose(error);
            }
        });
    }

    private static ByteBuf filled(EngineHarness h, int size, int value) {
        ByteBuf b = h.clientMemory.byteBufAllocator().directBuffer(size);
        for (int i = 0; i < size; i++) {
            b.writeByte(value);
        }
        return b;
    }
}
