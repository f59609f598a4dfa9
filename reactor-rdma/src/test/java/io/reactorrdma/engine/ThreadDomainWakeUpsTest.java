package io.reactorrdma.engine;

import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.EngineConfig;
import io.netty.buffer.ByteBuf;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Block mode's wake-ups per message: in a ping-pong (one message in flight, each side's I/O thread
 * blocks between messages) each side has to wait once per message — for the peer's message — and
 * no more: its own send completions, credit returns and stale notifications must not end a wait.
 * Counted with {@code rdma.idle.waits}, so the result does not depend on how loaded the host is
 * (a reply that arrives while the thread still spins saves a wait, it never adds one).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ThreadDomainWakeUpsTest {

    static final int SIZE = 64;
    static final int WARM_UP = 300;
    static final int MEASURED = 3_000;
    /** One wait per message is the floor; the old code waited ~1.7 times per message over shm. */
    static final double MAX_WAITS_PER_MESSAGE = 1.2;

    private Path shmDir;

    @AfterEach
    void deleteShmDirectory() throws IOException {
        if (shmDir == null || !Files.exists(shmDir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(shmDir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    @Test
    void aBlockModePingPongOverLoopbackWaitsAboutOncePerMessagePerSide() throws Exception {
        SoftConfig soft = SoftConfig.defaults();
        assertOneWaitPerMessage(() -> SoftContext.openLoopback(soft), "loopback");
    }

    @Test
    void aBlockModePingPongOverShmWaitsAboutOncePerMessagePerSide() throws Exception {
        // short: the wake sockets' UNIX addresses must fit in 107 bytes
        shmDir = Paths.get("/dev/shm", "rr-wakes-" + ProcessHandle.current().pid() + "-" + Long.toHexString(System.nanoTime()));
        SoftConfig soft = SoftConfig.defaults().withShmDirectory(shmDir);
        assertOneWaitPerMessage(() -> SoftContext.openShm(soft), "shm");
    }

    /**
     * A burst on one socket (RSocket multiplexes a caller's requests on one connection): the messages
     * offered before the I/O thread's turn go in that turn's one post, so the peer gets one doorbell and
     * one solicited wake for the burst, and its echoes go back the same way. The old engine took one
     * message per socket per turn: a doorbell each, exactly {@link #BURST} per burst here.
     */
    @Test
    void aBurstOnOneSocketGoesInOneDoorbellAndWakesThePeerOnce() throws Exception {
        shmDir = Paths.get("/dev/shm", "rr-burst-" + ProcessHandle.current().pid() + "-" + Long.toHexString(System.nanoTime()));
        SoftConfig soft = SoftConfig.defaults().withShmDirectory(shmDir);
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openShm(soft), EngineConfig.defaults(), IdleStrategy.BLOCK,
                EngineHarness.echo())) {
            EngineSocket socket = h.client.openSocket(h.address(), Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            Bursts bursts = new Bursts(h, socket);
            socket.inbound(bursts);
            bursts.start();
            long[] start = bursts.warmedUp.get(60, TimeUnit.SECONDS);
            long[] end = bursts.done.get(60, TimeUnit.SECONDS);
            String detail = "client " + h.client.metrics() + ", server " + h.server.metrics();
            assertThat((double) (end[0] - start[0]) / MEASURED_BURSTS).as("client doorbells per burst (%s)", detail)
                    .isLessThanOrEqualTo(1.2);
            assertThat((double) (end[1] - start[1]) / MEASURED_BURSTS).as("server doorbells per burst (%s)", detail)
                    .isLessThanOrEqualTo(1.2);
            assertThat((double) (end[3] - start[3]) / MEASURED_BURSTS).as("server idle waits per burst (%s)", detail)
                    .isLessThanOrEqualTo(MAX_WAITS_PER_MESSAGE);
            assertThat((double) (end[2] - start[2]) / MEASURED_BURSTS).as("client idle waits per burst (%s)", detail)
                    .isLessThanOrEqualTo(MAX_WAITS_PER_MESSAGE);
            socket.close();
        }
    }

    static final int BURST = 4;
    static final int WARM_UP_BURSTS = 100;
    static final int MEASURED_BURSTS = 1_000;

    /** The client's side of {@link #aBurstOnOneSocketGoesInOneDoorbellAndWakesThePeerOnce}: a burst, all its echoes, the next burst. */
    private static final class Bursts implements EngineSocket.Inbound {
        final EngineHarness h;
        final EngineSocket socket;
        final CompletableFuture<long[]> warmedUp = new CompletableFuture<>();
        final CompletableFuture<long[]> done = new CompletableFuture<>();
        int received;

        Bursts(EngineHarness h, EngineSocket socket) {
            this.h = h;
            this.socket = socket;
        }

        void start() {
            h.client.execute(this::sendBurst);
        }

        /** On the client's I/O thread, within one task: the whole burst is offered before the engine's next turn. */
        private void sendBurst() {
            for (int i = 0; i < BURST; i++) {
                ByteBuf m = h.clientMemory.byteBufAllocator().directBuffer(SIZE, SIZE);
                m.writeZero(SIZE);
                if (!socket.offer(m)) {
                    AssertionError e = new AssertionError("the socket refused a message");
                    done.completeExceptionally(e);
                    warmedUp.completeExceptionally(e);
                    return;
                }
            }
        }

        private long[] counters() {
            EngineMetrics c = h.client.metrics();
            EngineMetrics s = h.server.metrics();
            return new long[]{c.doorbells(), s.doorbells(), c.idleWaits(), s.idleWaits()};
        }

        @Override
        public void onMessage(ByteBuf message) {
            message.release();
            socket.consumed(1);
            received++;
            if (received % BURST != 0) {
                return;
            }
            int bursts = received / BURST;
            // read on the client's I/O thread once the burst's last echo is in: the server has posted it and idles
            if (bursts == WARM_UP_BURSTS) {
                warmedUp.complete(counters());
            } else if (bursts == WARM_UP_BURSTS + MEASURED_BURSTS) {
                done.complete(counters());
                return;
            }
            sendBurst();
        }

        @Override
        public void onClose(Throwable error) {
            AssertionError e = new AssertionError("the socket closed during the bursts", error);
            warmedUp.completeExceptionally(e);
            done.completeExceptionally(e);
        }
    }

    private void assertOneWaitPerMessage(Supplier<VerbsContext> contexts, String fabric) throws Exception {
        try (EngineHarness h = new EngineHarness(contexts, EngineConfig.defaults(), IdleStrategy.BLOCK, EngineHarness.echo())) {
            EngineSocket socket = h.client.openSocket(h.address(), Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            PingPong pingPong = new PingPong(h, socket);
            socket.inbound(pingPong);
            pingPong.start();
            long[] start = pingPong.warmedUp.get(60, TimeUnit.SECONDS);
            long[] end = pingPong.done.get(60, TimeUnit.SECONDS);
            double client = (double) (end[0] - start[0]) / MEASURED;
            double server = (double) (end[1] - start[1]) / MEASURED;
            String detail = fabric + ": client " + h.client.metrics() + ", server " + h.server.metrics();
            assertThat(client).as("client idle waits per message over %s (%s)", fabric, detail).isLessThanOrEqualTo(MAX_WAITS_PER_MESSAGE);
            assertThat(server).as("server idle waits per message over %s (%s)", fabric, detail).isLessThanOrEqualTo(MAX_WAITS_PER_MESSAGE);
            // the measure means something only if the threads did block: a ping-pong that never waits proves nothing
            assertThat(client + server).as("idle waits per message, both sides, over %s (%s)", fabric, detail).isGreaterThan(0.2);
            socket.close();
        }
    }

    /**
     * The client's side: each echo's arrival sends the next message from the client's I/O thread,
     * so nothing but the messages themselves moves either thread. The waits counters are read on the
     * client's I/O thread and, through a message's round trip, at a point where the server is idle.
     */
    private static final class PingPong implements EngineSocket.Inbound {
        final EngineHarness h;
        final EngineSocket socket;
        final CompletableFuture<long[]> warmedUp = new CompletableFuture<>();
        final CompletableFuture<long[]> done = new CompletableFuture<>();
        int received;

        PingPong(EngineHarness h, EngineSocket socket) {
            this.h = h;
            this.socket = socket;
        }

        void start() {
            h.client.execute(this::sendOne);
        }

        private void sendOne() {
            ByteBuf m = h.clientMemory.byteBufAllocator().directBuffer(SIZE, SIZE);
            m.writeZero(SIZE);
            if (!socket.offer(m)) {
                done.completeExceptionally(new AssertionError("the socket refused a message"));
                warmedUp.completeExceptionally(new AssertionError("the socket refused a message"));
            }
        }

        @Override
        public void onMessage(ByteBuf message) {
            message.release();
            socket.consumed(1);
            received++;
            // Read on the client's I/O thread; the server's counter is written by its own thread, which
            // has sent this echo and is about to wait for the next message: a plain read there is at most
            // one wait off, which the margins absorb.
            if (received == WARM_UP) {
                warmedUp.complete(new long[]{h.client.metrics().idleWaits(), h.server.metrics().idleWaits()});
            } else if (received == WARM_UP + MEASURED) {
                done.complete(new long[]{h.client.metrics().idleWaits(), h.server.metrics().idleWaits()});
                return;
            }
            sendOne();
        }

        @Override
        public void onClose(Throwable error) {
            AssertionError e = new AssertionError("the socket closed during the ping-pong", error);
            warmedUp.completeExceptionally(e);
            done.completeExceptionally(e);
        }
    }
}
