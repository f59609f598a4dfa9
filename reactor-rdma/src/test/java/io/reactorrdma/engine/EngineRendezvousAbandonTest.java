package io.reactorrdma.engine;

import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.EngineConfig;
import io.netty.buffer.ByteBuf;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.CompletionQueue;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.work.RecvWr;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.work.WcOpcode;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static io.reactorrdma.engine.EngineRendezvousFaultTest.MIB;
import static io.reactorrdma.engine.EngineRendezvousFaultTest.awaitPosted;
import static io.reactorrdma.engine.EngineRendezvousFaultTest.echoOne;
import static io.reactorrdma.engine.EngineRendezvousFaultTest.filled;
import static io.reactorrdma.engine.EngineRendezvousFaultTest.waitFor;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An interrupted large transfer frees the receiver's destination (the sender
 * tells it to abandon the token), a peer that asks and never writes pins at most the configured
 * bytes, and an answered destination that sees no data within the write timeout is revoked —
 * the sender's message fails cleanly, the memory is reused only after the sender gave the token up.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EngineRendezvousAbandonTest {

    /** Holds {@code domain}'s I/O thread until the returned latch is counted down. */
    static CountDownLatch hold(ThreadDomain domain) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        domain.execute(() -> {
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

    /** Returns once a task handed to {@code domain} now has run. */
    static void hop(ThreadDomain domain) throws InterruptedException {
        CountDownLatch ran = new CountDownLatch(1);
        domain.execute(ran::countDown);
        assertThat(ran.await(30, TimeUnit.SECONDS)).isTrue();
    }

    /** An echoing acceptor that also hands each accepted socket to the test. */
    static Consumer<EngineSocket> echoAndKeep(BlockingQueue<EngineSocket> accepted) {
        Consumer<EngineSocket> echo = EngineHarness.echo();
        return s -> {
            accepted.add(s);
            echo.accept(s);
        };
    }

    static long serverDestinations(EngineHarness h) {
        return h.serverMemory.destinationStatistics().liveBuffers();
    }

    @Test
    void aSocketThatEndsDuringALargeTransferFreesThePeersDestination() throws Exception {
        BlockingQueue<EngineSocket> accepted = new LinkedBlockingQueue<>();
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults()), EngineConfig.defaults(),
                IdleStrategy.BUSY_SPIN, echoAndKeep(accepted))) {
            EngineSocket big = h.client.openSocket(h.address(), Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            EngineSocket other = h.client.openSocket(h.address(), Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            EngineTest.Collector bigIn = new EngineTest.Collector();
            EngineTest.Collector otherIn = new EngineTest.Collector();
            big.inbound(bigIn);
            other.inbound(otherIn);
            EngineSocket serverBig = accepted.poll(30, TimeUnit.SECONDS);
            assertThat(serverBig.id()).isEqualTo(big.id());
            echoOne(h, other, otherIn, 100, 1);

            // The server closes its socket and answers the request; the client sees both before it
            // writes a byte, so its socket ends with the message in progress.
            CountDownLatch server = hold(h.server);
            big.offer(filled(h, 16 * MIB, 7));
            awaitPosted(h, big);
            CountDownLatch client = hold(h.client);
            serverBig.close();
            server.countDown();
            waitFor(() -> h.server.metrics().rendezvousRoundTrips() == 1 && h.server.metrics().socketsOpen() == 1,
                    () -> "answered and closed: server " + h.server.metrics() + " " + h.server.describeEngines() + "; client "
                            + h.client.metrics() + " received " + bigIn.items);
            hop(h.server); // a task runs after the turn that posted what the answer prepared
            assertThat(serverDestinations(h)).as("the destination is allocated").isEqualTo(1);
            client.countDown();

            assertThat(bigIn.items.poll(30, TimeUnit.SECONDS)).as("the client's socket ended").isEqualTo("closed");
            waitFor(() -> serverDestinations(h) == 0, () -> "the server freed the abandoned destination (it holds "
                    + serverDestinations(h) + ")");
            assertThat(h.server.metrics().engines()).isEqualTo(1);
            echoOne(h, other, otherIn, 1 * MIB, 2);
            echoOne(h, other, otherIn, 16 * MIB, 3);
            other.close();
        }
    }

    @Test
    void anAnsweredDestinationThatSeesNoWriteIsRevokedAndTheLateMessageFailsCleanly() throws Exception {
        BlockingQueue<EngineSocket> accepted = new LinkedBlockingQueue<>();
        // The peer gets one more timeout to give a revoked token up: generous, so a busy machine cannot fail the engine instead.
        EngineConfig config = EngineConfig.defaults().withRendezvousWriteTimeout(Duration.ofSeconds(3));
        CountDownLatch stalled = new CountDownLatch(1);
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults()), config,
                IdleStrategy.BUSY_SPIN, echoAndKeep(accepted))) {
            EngineSocket big = h.client.openSocket(h.address(), Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            EngineSocket serverBig = accepted.poll(30, TimeUnit.SECONDS);
            BlockingQueue<Object> bigIn = new LinkedBlockingQueue<>();
            big.inbound(new EngineSocket.Inbound() {
                @Override
                public void onMessage(ByteBuf message) {
                    if (message.getByte(message.readerIndex()) == 'B') {
                        // stalls the client's I/O thread between the answer and the data until the peer revoked the destination
                        message.release();
                        big.consumed(1);
                        try {
                            stalled.await(60, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    } else {
                        bigIn.add(message);
                    }
                }

                @Override
                public void onClose(Throwable error) {
                    bigIn.add(error != null ? error : "closed");
                }
            });
            EngineRendezvousFaultTest.Rejections rejected = new EngineRendezvousFaultTest.Rejections();
            big.outboundListener(rejected);

            CountDownLatch server = hold(h.server);
            big.offer(filled(h, 16 * MIB, 7));
            awaitPosted(h, big);
            ByteBuf stall = h.serverMemory.byteBufAllocator().directBuffer(1).writeByte('B');
            serverBig.offer(stall); // goes out with the answer
            server.countDown();
            waitFor(() -> h.server.metrics().rendezvousRevocations() == 1, () -> "the server revoked the destination: server "
                    + h.server.metrics() + " " + h.server.describeEngines() + "; client " + h.client.metrics() + " received " + bigIn);
            stalled.countDown();

            RuntimeException error = rejected.errors.poll(30, TimeUnit.SECONDS);
            assertThat(error).as("the message failed; client " + h.client.metrics() + " " + h.client.describeEngines() + " received "
                    + bigIn + "; server " + h.server.metrics() + " " + h.server.describeEngines())
                    .isInstanceOf(MessageRefusedException.class);
            assertThat(error.getMessage()).contains("reclaimed").contains("16 MiB").contains("withRendezvousWriteTimeout");
            waitFor(() -> serverDestinations(h) == 0, "the server freed the revoked destination once the client gave it up");
            assertThat(h.server.metrics().engines()).isEqualTo(1);
            // the socket and the connection go on, and what arrives is intact
            for (int value = 1; value <= 3; value++) {
                big.offer(filled(h, 4 * MIB, value));
                Object o = bigIn.poll(30, TimeUnit.SECONDS);
                assertThat(o).isInstanceOf(ByteBuf.class);
                ByteBuf echo = (ByteBuf) o;
                byte[] bytes = new byte[echo.readableBytes()];
                echo.getBytes(echo.readerIndex(), bytes);
                byte[] expected = new byte[4 * MIB];
                java.util.Arrays.fill(expected, (byte) value);
                assertThat(bytes).isEqualTo(expected);
                echo.release();
                big.consumed(1);
            }
            big.close();
        }
    }

    @Test
    void aPeerThatAsksAndNeverWritesPinsAtMostTheBoundAndIsFailedWhenItIgnoresRevocation() throws Exception {
        EngineConfig config = EngineConfig.defaults().withMaxPinnedDestinationBytes(4L * MIB)
                .withRendezvousWriteTimeout(Duration.ofMillis(500));
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults()), config,
                IdleStrategy.BUSY_SPIN, EngineHarness.echo()); RawPeer peer = new RawPeer()) {
            peer.connect(h);
            waitFor(() -> h.server.metrics().engines() == 1, "the raw peer is connected");
            peer.send(WireHeader.SOCKET_OPEN, 1, 0, 0);
            for (int token = 1; token <= 3; token++) {
                peer.send(WireHeader.RNDV_REQUEST, 1, 3 * MIB, token);
            }
            int[] first = peer.receive();
            assertThat(first[0]).as("answered").isEqualTo(WireHeader.RNDV_ANSWER);
            assertThat(first[2]).as("token").isEqualTo(1);
            Thread.sleep(100); // (the old engine answered all three at once)
            assertThat(h.serverMemory.destinationStatistics().liveBytes()).as("pinned bytes within the bound")
                    .isLessThanOrEqualTo(4L * MIB);

            int[] revoke = peer.receive();
            assertThat(revoke[0]).as("the unwritten destination is revoked").isEqualTo(WireHeader.RNDV_REVOKE);
            assertThat(revoke[2]).isEqualTo(1);
            peer.send(WireHeader.RNDV_ABANDON, 1, 0, 1);
            int[] second = peer.receive();
            assertThat(second[0]).as("freed room answers the next request").isEqualTo(WireHeader.RNDV_ANSWER);
            assertThat(second[2]).isEqualTo(2);
            // this time the peer ignores the revocation: one more timeout later the server fails it
            assertThat(peer.receive()[0]).isEqualTo(WireHeader.RNDV_REVOKE);
            assertThat(peer.conn.onDisconnect().get(30, TimeUnit.SECONDS)).as("the server dropped the peer").isNotBlank();
            waitFor(() -> h.server.metrics().engines() == 0, "the server's engine is gone");
            waitFor(() -> h.serverMemory.destinationStatistics().liveBuffers() == 0, "no destination left");
        }
    }

    /**
     * Requests waiting for room keep their order when some of them are abandoned: an abandoned one
     * is refused as abandoned at once, its token may be asked for again (that request queues at the
     * end), and freed room goes to the oldest request still waiting.
     */
    @Test
    void abandonedWaitingRequestsAreRefusedAndSkippedInOrder() throws Exception {
        EngineConfig config = EngineConfig.defaults().withMaxPinnedDestinationBytes(4L * MIB)
                .withRendezvousWriteTimeout(Duration.ofSeconds(60));
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults()), config,
                IdleStrategy.BUSY_SPIN, EngineHarness.echo()); RawPeer peer = new RawPeer()) {
            peer.connect(h);
            waitFor(() -> h.server.metrics().engines() == 1, "the raw peer is connected");
            peer.send(WireHeader.SOCKET_OPEN, 1, 0, 0);
            for (int token = 1; token <= 4; token++) {
                peer.send(WireHeader.RNDV_REQUEST, 1, 3 * MIB, token);
            }
            assertThat(peer.receive()).as("token 1 answered; 2, 3, 4 wait").containsExactly(WireHeader.RNDV_ANSWER, 3 * MIB, 1);
            peer.send(WireHeader.RNDV_ABANDON, 1, 0, 3);
            assertThat(peer.receive()).as("a waiting request given up is refused as abandoned")
                    .containsExactly(WireHeader.RNDV_REFUSE, 3 * MIB, 3);
            peer.send(WireHeader.RNDV_REQUEST, 1, 3 * MIB, 3); // the token is free again: it queues behind 4
            peer.send(WireHeader.RNDV_ABANDON, 1, 0, 1);
            assertThat(peer.receive()).as("the oldest waiting request gets the room").containsExactly(WireHeader.RNDV_ANSWER, 3 * MIB, 2);
            peer.send(WireHeader.RNDV_ABANDON, 1, 0, 2);
            assertThat(peer.receive()).as("the abandoned request is skipped").containsExactly(WireHeader.RNDV_ANSWER, 3 * MIB, 4);
            peer.send(WireHeader.RNDV_ABANDON, 1, 0, 4);
            assertThat(peer.receive()).as("then the token asked for again").containsExactly(WireHeader.RNDV_ANSWER, 3 * MIB, 3);
            peer.send(WireHeader.RNDV_ABANDON, 1, 0, 3);
            waitFor(() -> h.serverMemory.destinationStatistics().liveBuffers() == 0, "no destination left");
            assertThat(h.server.metrics().engines()).as("no protocol error").isEqualTo(1);
        }
    }

    /** A raw verbs peer that speaks the wire protocol by hand: asks for destinations and never writes. */
    private static final class RawPeer implements AutoCloseable {
        final VerbsContext ctx = SoftContext.openLoopback(SoftConfig.defaults());
        final ProtectionDomain pd = ctx.allocPd();
        final CompletionQueue cq = ctx.createCq(256);
        final QueuePair qp = ctx.createQp(pd, QpAttributes.create(cq).withMaxRecvWr(64));
        final MemoryRegion mr = pd.allocate(1 << 20, AccessFlags.LOCAL_WRITE);
        final WorkCompletion[] wcs = {new WorkCompletion()};
        CmConnection conn;

        RawPeer() {
            RecvWr r = new RecvWr();
            for (int i = 0; i < 64; i++) {
                r.wrId(i).setSge(mr, 65536 + i * 9000L, 9000);
                qp.postRecv(new RecvWr[]{r}, 0, 1);
            }
        }

        void connect(EngineHarness h) {
            conn = ctx.connect(h.address(), qp, new ConnectionParameters(ConnectionParameters.VERSION, 64, 8192,
                    EngineConfig.defaults().maxMessageSize(), EngineConfig.defaults().socketMessageWindow())
                    .encode(), Duration.ofSeconds(20));
        }

        void send(byte type, int socket, int length, int token) {
            ByteBuffer b = mr.buffer().order(ByteOrder.LITTLE_ENDIAN);
            b.put(0, type).put(1, (byte) 0).putShort(2, (short) 0).putInt(4, socket).putInt(8, length).putInt(12, token);
            SendWr wr = new SendWr().wrId(1).opcode(WrOpcode.SEND);
            wr.setSge(mr, 0, WireHeader.SIZE);
            qp.postSend(new SendWr[]{wr}, 0, 1);
        }

        /** The next message from the engine: {type, length, token}. */
        int[] receive() throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline) {
                if (cq.poll(wcs, 1) == 1 && wcs[0].opcode() == WcOpcode.RECV) {
                    ByteBuffer b = mr.buffer().order(ByteOrder.LITTLE_ENDIAN);
                    int at = 65536 + (int) wcs[0].wrId() * 9000;
                    byte type = b.get(at);
                    if (type == WireHeader.HEARTBEAT || type == WireHeader.CREDIT) {
                        continue;
                    }
                    return new int[]{type, b.getInt(at + 8), b.getInt(at + 12)};
                }
                Thread.sleep(1);
            }
            throw new AssertionError("no message from the engine within 30 s");
        }

        @Override
        public void close() {
            ctx.close();
        }
    }
}
