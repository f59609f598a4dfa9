package io.reactorrdma.engine;

import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.EngineConfig;
import io.netty.buffer.ByteBuf;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import io.reactorrdma.verbs.soft.fault.SoftFaults;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A receiver that cannot allocate a rendezvous destination refuses the
 * message (the sender's message fails with the cause, the connection goes on), a throwing user
 * callback fails its socket only, and a completion batch is never cut short by either. The
 * server's I/O thread is held while the client posts, so the failing completion and the
 * completions after it are polled in one batch.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EngineRendezvousFaultTest {

    static final int MIB = 1 << 20;

    /** Rejections reported to a socket's outbound listener. */
    static final class Rejections implements EngineSocket.OutboundListener {
        final BlockingQueue<RuntimeException> errors = new LinkedBlockingQueue<>();

        @Override
        public void onSent(int messages) {
        }

        @Override
        public void onRejected(ByteBuf message, long ordinal, RuntimeException error) {
            message.release();
            errors.add(error);
        }

        RuntimeException take() throws InterruptedException {
            RuntimeException e = errors.poll(30, TimeUnit.SECONDS);
            if (e == null) {
                throw new AssertionError("no message was rejected within 30 s");
            }
            return e;
        }
    }

    /** Contexts for the harness: the client's first, then the server's with {@code serverFaults}. */
    static Supplier<VerbsContext> clientThenServer(SoftFaults serverFaults) {
        AtomicInteger n = new AtomicInteger();
        return () -> SoftContext.openLoopback(SoftConfig.defaults(), n.getAndIncrement() == 0 ? SoftFaults.none() : serverFaults);
    }

    static ByteBuf filled(EngineHarness h, int size, int value) {
        byte[] bytes = new byte[size];
        java.util.Arrays.fill(bytes, (byte) value);
        // one call: paranoid leak detection records each
        return h.clientMemory.byteBufAllocator().directBuffer(size, size).writeBytes(bytes);
    }

    /** Holds the server's I/O thread until the returned latch is counted down. */
    static CountDownLatch holdServer(EngineHarness h) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        h.server.execute(() -> {
            held.countDown();
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
        return release;
    }

    /**
     * Waits until the client's I/O thread has taken every queued message of {@code sockets} and
     * posted what it prepared (a task handed to it runs after the turn that posted them).
     */
    static void awaitPosted(EngineHarness h, EngineSocket... sockets) throws InterruptedException {
        for (EngineSocket s : sockets) {
            waitFor(() -> s.queued() == 0, "the client took the messages of " + s);
        }
        CountDownLatch hop = new CountDownLatch(1);
        h.client.execute(hop::countDown);
        assertThat(hop.await(30, TimeUnit.SECONDS)).isTrue();
    }

    static void waitFor(java.util.function.BooleanSupplier c, String what) throws InterruptedException {
        waitFor(c, () -> what);
    }

    static void waitFor(java.util.function.BooleanSupplier c, Supplier<String> what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!c.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 30 s: " + what.get());
            }
            Thread.sleep(5);
        }
    }

    static void echoOne(EngineHarness h, EngineSocket s, EngineTest.Collector in, int size, int value) throws Exception {
        s.offer(filled(h, size, value));
        ByteBuf echo = in.take(h);
        assertThat(echo.readableBytes()).isEqualTo(size);
        byte[] bytes = new byte[size];
        echo.getBytes(echo.readerIndex(), bytes);
        byte[] expected = new byte[size];
        java.util.Arrays.fill(expected, (byte) value);
        assertThat(bytes).isEqualTo(expected);
        echo.release();
        s.consumed(1);
    }

    @Test
    void aDestinationThatCannotBeAllocatedFailsThatMessageOnly() throws Exception {
        // The server's context may hold 16 MiB registered: its local and remote-writable blocks fit, a 16 MiB destination does not.
        try (EngineHarness h = new EngineHarness(clientThenServer(SoftFaults.none().failRegistrationsAbove(16L * MIB)),
                EngineConfig.defaults(), IdleStrategy.BUSY_SPIN, EngineHarness.echo())) {
            EngineSocket big = h.client.openSocket(h.address(), Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            EngineSocket small = h.client.openSocket(h.address(), Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            EngineTest.Collector bigIn = new EngineTest.Collector();
            EngineTest.Collector smallIn = new EngineTest.Collector();
            Rejections rejected = new Rejections();
            big.inbound(bigIn);
            big.outboundListener(rejected);
            small.inbound(smallIn);
            echoOne(h, small, smallIn, 100, 1);

            CountDownLatch release = holdServer(h);
            big.offer(filled(h, 16 * MIB, 7));
            awaitPosted(h, big); // the request goes first
            for (int i = 0; i < 20; i++) {
                small.offer(filled(h, 100, i));
            }
            awaitPosted(h, small);
            release.countDown();

            for (int i = 0; i < 20; i++) {
                ByteBuf echo = smallIn.take(h); // messages polled with the failing request in one batch
                assertThat(echo.getByte(echo.readerIndex())).isEqualTo((byte) i);
                echo.release();
                small.consumed(1);
            }
            RuntimeException error = rejected.take();
            assertThat(error).isInstanceOf(MessageRefusedException.class);
            assertThat(error.getMessage()).contains("peer ")
                    .contains("could not allocate").contains("16777216").contains("injected fault");
            assertThat(h.server.metrics().engines()).as("the server's engine survived").isEqualTo(1);
            // the refused socket and the connection go on
            echoOne(h, big, bigIn, 1 * MIB, 3);
            echoOne(h, small, smallIn, 100, 9);
            big.close();
            small.close();
        }
    }

    @Test
    void aThrowingInboundFailsThatSocketOnly() throws Exception {
        Consumer<EngineSocket> acceptor = s -> s.inbound(new EngineSocket.Inbound() {
            @Override
            public void onMessage(ByteBuf message) {
                if (message.getByte(message.readerIndex()) == 'X') {
                    throw new IllegalStateException("the application's handler broke");
                }
                s.consumed(1);
                s.offer(message);
            }

            @Override
            public void onClose(Throwable error) {
            }
        });
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults()), EngineConfig.defaults(),
                IdleStrategy.BUSY_SPIN, acceptor)) {
            EngineSocket bad = h.client.openSocket(h.address(), Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            EngineSocket good = h.client.openSocket(h.address(), Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            EngineTest.Collector badIn = new EngineTest.Collector();
            EngineTest.Collector goodIn = new EngineTest.Collector();
            bad.inbound(badIn);
            good.inbound(goodIn);
            echoOne(h, good, goodIn, 100, 1);

            CountDownLatch release = holdServer(h);
            bad.offer(filled(h, 100, 'X'));
            awaitPosted(h, bad);
            for (int i = 0; i < 20; i++) {
                good.offer(filled(h, 100, i));
            }
            awaitPosted(h, good);
            release.countDown();

            for (int i = 0; i < 20; i++) {
                ByteBuf echo = goodIn.take(h);
                assertThat(echo.getByte(echo.readerIndex())).isEqualTo((byte) i);
                echo.release();
                good.consumed(1);
            }
            Object end = badIn.items.poll(30, TimeUnit.SECONDS);
            assertThat(end).as("the socket whose handler threw ended with an error").isInstanceOf(EngineException.class);
            assertThat(((Throwable) end).getMessage()).contains("closed socket");
            assertThat(h.server.metrics().engines()).as("the server's engine survived").isEqualTo(1);
            echoOne(h, good, goodIn, 100, 5);
            echoOne(h, good, goodIn, 1 * MIB, 6);
            good.close();
        }
    }
}
