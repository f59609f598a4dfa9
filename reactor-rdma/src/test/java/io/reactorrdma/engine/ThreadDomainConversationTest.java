package io.reactorrdma.engine;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.ConnectionRequest;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How BACK_OFF judges the work a full spin found ({@link SpinBudget}): an answer from the peer this thread
 * posted to last, or work another thread handed over, is the next step of a conversation; a message from
 * another peer is not. Each case holds the client's spin at its start ({@link ThreadDomain.SpinHook}) until
 * what it is to find is in its completion queue or its hand-over queue, so no timing decides the outcome.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ThreadDomainConversationTest {

    @Test
    void anAnswerFromThePeerPostedToLastIsAConversationAndWorkFromAnotherPeerIsNot() throws Exception {
        List<EngineSocket> served = new CopyOnWriteArrayList<>();
        AtomicInteger serverReceived = new AtomicInteger();
        Consumer<EngineSocket> acceptor = s -> {
            s.inbound(new EngineSocket.Inbound() {
                @Override
                public void onMessage(ByteBuf message) {
                    message.release();
                    s.consumed(1);
                    serverReceived.incrementAndGet();
                }

                @Override
                public void onClose(Throwable error) {
                }
            });
            served.add(s);
        };
        EngineConfig config = EngineConfig.defaults().withHeartbeatInterval(Duration.ofMinutes(2));
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults()), config,
                IdleStrategy.BACK_OFF, acceptor);
             SecondListener second = new SecondListener(h, acceptor)) {
            EngineSocket a = h.client.openSocket(h.address(), Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            awaitSize(served, 1);
            EngineSocket b = h.client.openSocket(second.address(), Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            awaitSize(served, 2);
            EngineSocket servedA = served.get(0);
            EngineSocket servedB = served.get(1);
            EngineTest.Collector fromA = new EngineTest.Collector();
            EngineTest.Collector fromB = new EngineTest.Collector();
            a.inbound(fromA);
            b.inbound(new EngineSocket.Inbound() {
                @Override
                public void onMessage(ByteBuf message) {
                    fromB.onMessage(message);
                    h.client.execute(() -> { }); // the I/O thread gives itself a task, as a grant does: no conversation
                }

                @Override
                public void onClose(Throwable error) {
                    fromB.onClose(error);
                }
            });
            HeldSpin held = new HeldSpin();
            h.client.spinHook = held;

            // the client posts to A last; then B's server sends (and the client gives itself a task on it): not the
            // conversation the client is in
            sendAndAwait(h, a, serverReceived);
            held.holdNext(h);
            sendFromServer(h, servedB);
            assertThat(held.releaseAndJudgement()).as("a message from a peer the client did not post to last").isFalse();
            fromB.take(h).release();

            // the client posts to A last; then A answers: the next step of the conversation
            sendAndAwait(h, a, serverReceived);
            held.holdNext(h);
            sendFromServer(h, servedA);
            assertThat(held.releaseAndJudgement()).as("an answer from the peer the client posted to last").isTrue();
            fromA.take(h).release();

            // the application hands a message over from its own thread (to B, not posted to last): it waits for this one
            held.holdNext(h);
            assertThat(b.offer(message(h))).isTrue();
            assertThat(held.releaseAndJudgement()).as("work another thread handed over").isTrue();
            awaitCount(serverReceived, 3);
            h.client.spinHook = null;
        }
    }

    /**
     * Holds the next full spin that starts once armed at its start, then reports how it was judged. The test's
     * kicks (empty tasks) and the hold exclude each other: a spin is held only while no kick is pending, and no kick
     * is handed over while a spin is held, so none can be found with what the held spin is to find.
     */
    private static final class HeldSpin implements ThreadDomain.SpinHook {
        private boolean armed;
        private volatile boolean holding;
        private int pendingKicks;
        private volatile CountDownLatch started = new CountDownLatch(1);
        private volatile CountDownLatch go = new CountDownLatch(1);
        private final BlockingQueue<Boolean> judged = new LinkedBlockingQueue<>();

        @Override
        public void spinStarted() {
            synchronized (this) {
                if (!armed || pendingKicks > 0) {
                    return;
                }
                armed = false;
                holding = true;
            }
            started.countDown();
            try {
                go.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void spinFound(boolean conversation) {
            if (holding) {
                holding = false;
                judged.add(conversation);
            }
        }

        /** Arms the hook and kicks the client's I/O thread with empty tasks until a full spin starts and is held. */
        void holdNext(EngineHarness h) throws InterruptedException {
            started = new CountDownLatch(1);
            go = new CountDownLatch(1);
            synchronized (this) {
                armed = true;
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!started.await(10, TimeUnit.MILLISECONDS)) {
                assertThat(System.nanoTime() < deadline).as("a full spin of the client started").isTrue();
                synchronized (this) {
                    if (holding) {
                        continue; // held just now: started is about to count down
                    }
                    pendingKicks++;
                }
                h.client.execute(this::kicked); // a new idle episode after it: a full spin, or a probe within 256
            }
        }

        private synchronized void kicked() {
            pendingKicks--;
        }

        Boolean releaseAndJudgement() throws InterruptedException {
            go.countDown();
            Boolean conversation = judged.poll(60, TimeUnit.SECONDS);
            assertThat(conversation).as("the held spin found work").isNotNull();
            return conversation;
        }
    }

    /** The client sends one message on {@code s} and waits until the server took it: the client posted to that peer last. */
    private static void sendAndAwait(EngineHarness h, EngineSocket s, AtomicInteger serverReceived) throws InterruptedException {
        int before = serverReceived.get();
        assertThat(s.offer(message(h))).isTrue();
        awaitCount(serverReceived, before + 1);
    }

    /**
     * The server sends one message on {@code served}; returns once its post is done, so the message lies in the
     * client's completion queue (the soft provider writes the receiver's slot in the sender's post).
     */
    private static void sendFromServer(EngineHarness h, EngineSocket served) throws InterruptedException {
        long doorbells = h.server.metrics().doorbells();
        ByteBuf m = h.serverMemory.byteBufAllocator().directBuffer(16).writeLong(7).writeLong(8);
        assertThat(served.offer(m)).isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (h.server.metrics().doorbells() == doorbells) {
            assertThat(System.nanoTime() < deadline).as("the server posted").isTrue();
            Thread.sleep(1);
        }
    }

    private static ByteBuf message(EngineHarness h) {
        return h.clientMemory.byteBufAllocator().directBuffer(16).writeLong(1).writeLong(2);
    }

    private static void awaitSize(List<?> list, int size) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (list.size() < size) {
            assertThat(System.nanoTime() < deadline).as("%d accepted sockets", size).isTrue();
            Thread.sleep(1);
        }
    }

    private static void awaitCount(AtomicInteger count, int value) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (count.get() < value) {
            assertThat(System.nanoTime() < deadline).as("%d messages at the server", value).isTrue();
            Thread.sleep(1);
        }
    }

    /** A second listener of the harness's server domain: sockets to it share a second engine on the client. */
    private static final class SecondListener implements AutoCloseable {
        private final CmListener listener;
        private final Thread acceptor;
        private volatile boolean running = true;

        SecondListener(EngineHarness h, Consumer<EngineSocket> onSocket) {
            listener = h.serverCtx.listen(new InetSocketAddress("127.0.0.1", 0), 16);
            acceptor = new Thread(() -> {
                while (running) {
                    try {
                        ConnectionRequest r = listener.poll(Duration.ofMillis(100));
                        if (r != null) {
                            h.server.accept(r, onSocket);
                        }
                    } catch (InterruptedException | IllegalStateException e) {
                        return;
                    }
                }
            }, "second-listener");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        InetSocketAddress address() {
            return listener.localAddress();
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            listener.close();
            acceptor.join(10_000);
        }
    }
}
