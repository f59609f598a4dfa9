package io.reactorrdma.engine;

import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.EngineConfig;
import io.netty.buffer.ByteBuf;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.CompletionQueue;
import io.reactorrdma.verbs.ConnectionRejectedException;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.work.RecvWr;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.work.WrOpcode;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A peer that speaks the verbs but breaks the engine's wire protocol: each kind of bad message
 * closes that engine only, with a protocol error; another client's socket on the same server
 * keeps working, and no buffer leaks (the harness checks live buffers at close).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EngineBadInputTest {

    /** A raw peer: its own context, queue pair and registered memory, talking verbs to the server. */
    private static final class RawPeer implements AutoCloseable {
        final VerbsContext ctx = SoftContext.openLoopback(SoftConfig.defaults());
        final ProtectionDomain pd = ctx.allocPd();
        final CompletionQueue cq = ctx.createCq(256);
        final QueuePair qp = ctx.createQp(pd, QpAttributes.create(cq).withMaxRecvWr(64));
        final MemoryRegion mr = pd.allocate(1 << 20, AccessFlags.LOCAL_WRITE);
        CmConnection conn;

        RawPeer() {
            RecvWr r = new RecvWr();
            for (int i = 0; i < 64; i++) {
                r.wrId(i).setSge(mr, 65536 + i * 9000L, 9000);
                qp.postRecv(new RecvWr[]{r}, 0, 1);
            }
        }

        void connect(EngineHarness h, ByteBuffer privateData) {
            conn = ctx.connect(h.address(), qp, privateData, Duration.ofSeconds(20));
        }

        void send(byte type, int flags, int credits, int socket, int length, int token, int totalBytes) {
            ByteBuffer b = mr.buffer().order(ByteOrder.LITTLE_ENDIAN);
            b.put(0, type).put(1, (byte) flags).putShort(2, (short) credits).putInt(4, socket).putInt(8, length).putInt(12, token);
            SendWr wr = new SendWr().wrId(1).opcode(WrOpcode.SEND);
            wr.setSge(mr, 0, totalBytes);
            qp.postSend(new SendWr[]{wr}, 0, 1);
        }

        @Override
        public void close() {
            ctx.close();
        }
    }

    private static ByteBuffer validParameters() {
        return ConnectionParameters.of(ConnectionParameters.VERSION, EngineConfig.defaults(), true).encode();
    }

    /** The good client's socket still echoes. */
    private static void assertStillWorks(EngineHarness h, EngineSocket good, EngineTest.Collector in) throws Exception {
        ByteBuf m = h.clientMemory.byteBufAllocator().directBuffer(32).writeLong(42);
        good.offer(m);
        ByteBuf echo = in.take(h);
        assertThat(echo.readLong()).isEqualTo(42);
        echo.release();
        good.consumed(1);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"unknown type", "non-zero flags", "length disagrees", "unknown rendezvous token", "too many credits",
            "oversized rendezvous", "short message", "second open of a socket", "grant flag off DATA", "zero grant on DATA"})
    void aMalformedMessageClosesThatEngineOnly(String variant) throws Exception {
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults()), EngineConfig.defaults(),
                IdleStrategy.BUSY_SPIN, EngineHarness.echo()); RawPeer bad = new RawPeer()) {
            EngineSocket good = h.client.openSocket(h.address(), Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            EngineTest.Collector in = new EngineTest.Collector();
            good.inbound(in);
            assertStillWorks(h, good, in);
            bad.connect(h, validParameters());
            waitFor(() -> h.server.metrics().engines() == 2);
            switch (variant) {
                case "unknown type" -> bad.send((byte) 99, 0, 0, 0, 0, 0, 16);
                case "non-zero flags" -> bad.send(WireHeader.HEARTBEAT, 7, 0, 0, 0, 0, 16);
                case "length disagrees" -> {
                    bad.send(WireHeader.SOCKET_OPEN, 0, 0, 1, 0, 0, 16);
                    bad.send(WireHeader.DATA, 0, 0, 1, 500, 0, 16 + 20);
                }
                case "unknown rendezvous token" -> bad.send(WireHeader.RNDV_ANSWER, 0, 0, 1, 100, 12345, WireHeader.RNDV_ANSWER_SIZE);
                case "too many credits" -> bad.send(WireHeader.CREDIT, 0, 1000, 0, 0, 0, 16);
                case "oversized rendezvous" -> bad.send(WireHeader.RNDV_REQUEST, 0, 0, 1, Integer.MAX_VALUE, 1, 16);
                case "short message" -> bad.send(WireHeader.DATA, 0, 0, 1, 0, 0, 5);
                case "grant flag off DATA" -> bad.send(WireHeader.HEARTBEAT, WireHeader.FLAG_GRANT, 0, 0, 0, 5, 16);
                case "zero grant on DATA" -> {
                    bad.send(WireHeader.SOCKET_OPEN, 0, 0, 1, 0, 0, 16);
                    bad.send(WireHeader.DATA, WireHeader.FLAG_GRANT, 0, 1, 0, 0, 16);
                }
                default -> {
                    bad.send(WireHeader.SOCKET_OPEN, 0, 0, 3, 0, 0, 16);
                    bad.send(WireHeader.SOCKET_OPEN, 0, 0, 3, 0, 0, 16);
                }
            }
            assertThat(bad.conn.onDisconnect().get(30, TimeUnit.SECONDS)).as("the server dropped the bad peer").isNotBlank();
            waitFor(() -> h.server.metrics().engines() == 1);
            assertStillWorks(h, good, in);
            good.close();
        }
    }

    @Test
    void aPeerThatIsNotAnEngineIsRejectedAtConnect() throws Exception {
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults()), EngineConfig.defaults(),
                IdleStrategy.BUSY_SPIN, EngineHarness.echo()); RawPeer stranger = new RawPeer()) {
            assertThatThrownBy(() -> stranger.connect(h, ByteBuffer.wrap("hello".getBytes())))
                    .isInstanceOf(ConnectionRejectedException.class);
            assertThat(h.server.metrics().engines()).isZero();
        }
    }

    private static void waitFor(java.util.function.BooleanSupplier c) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!c.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met in 30 s");
            }
            Thread.sleep(5);
        }
    }
}
