package io.reactorrdma.engine;

import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.EngineConfig;
import io.netty.buffer.ByteBuf;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EngineTest {

    /** A receiver that queues what arrives, for the test thread to take. */
    static final class Collector implements EngineSocket.Inbound {
        final BlockingQueue<Object> items = new LinkedBlockingQueue<>();

        @Override
        public void onMessage(ByteBuf message) {
            items.add(message);
        }

        @Override
        public void onClose(Throwable error) {
            items.add(error != null ? error : "closed");
        }

        ByteBuf take(EngineHarness h) throws InterruptedException {
            Object o = items.poll(30, TimeUnit.SECONDS);
            if (o instanceof ByteBuf) {
                return (ByteBuf) o;
            }
            throw new AssertionError("expected a message, got " + o + "; client " + h.client.metrics() + " server " + h.server.metrics()
                    + " engines " + h.client.describeEngines() + " / " + h.server.describeEngines());
        }
    }

    private static ByteBuf payload(EngineHarness h, int size, Random r) {
        ByteBuf b = h.clientMemory.byteBufAllocator().directBuffer(Math.max(size, 1));
        byte[] bytes = new byte[size];
        r.nextBytes(bytes);
        b.writeBytes(bytes);
        return b;
    }

    private static long crc(ByteBuf b) {
        CRC32 c = new CRC32();
        c.update(b.nioBuffer());
        return c.getValue();
    }

    @Test
    void echoesMessagesOfRandomSizesInOrderOverLoopback() throws Exception {
        runEcho(IdleStrategy.BUSY_SPIN, new int[]{0, 1, 16, 100, 4096, 8192, 8193, 65_536, 100_000, 1 << 20, 4 << 20}, 300);
    }

    @Test
    void echoesWithBlockingIoThreads() throws Exception {
        runEcho(IdleStrategy.BLOCK, new int[]{0, 7, 8192, 9000, 300_000}, 100);
    }

    @Test
    void socketGrantsRideOnDataThatGoesAnyway() throws Exception {
        // Before: every grant (one per half window of consumed messages) was a SOCKET_CREDIT SEND of
        // its own, beside the echo going back on the same socket.
        int messages = 3200;
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults()), EngineConfig.defaults(),
                IdleStrategy.BUSY_SPIN, EngineHarness.echo())) {
            EngineSocket socket = h.client.openSocket(h.address(), java.time.Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            Collector in = new Collector();
            socket.inbound(in);
            long postedBefore = h.server.metrics().requestsPosted();
            int sent = 0;
            for (int received = 0; received < messages; received++) {
                while (sent < messages && sent - received < 8) {
                    ByteBuf p = h.clientMemory.byteBufAllocator().directBuffer(64).writeLong(sent).writeZero(56);
                    assertThat(socket.offer(p)).isTrue();
                    sent++;
                }
                ByteBuf echo = in.take(h);
                assertThat(echo.getLong(echo.readerIndex())).isEqualTo(received);
                echo.release();
                socket.consumed(1);
            }
            long ownSends = h.server.metrics().requestsPosted() - postedBefore - messages;
            int grants = messages / (EngineConfig.DEFAULT_SOCKET_MESSAGE_WINDOW / 2);
            assertThat(ownSends).as("server SENDs beside its %d echoes (grants: %d, credits, heartbeats)", messages, grants)
                    .isLessThan(grants / 4);
            socket.close();
        }
    }

    private void runEcho(IdleStrategy idle, int[] fixedSizes, int randomCount) throws Exception {
        SoftConfig soft = SoftConfig.defaults();
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(soft), EngineConfig.defaults(),
                idle, EngineHarness.echo())) {
            EngineSocket socket = h.client.openSocket(h.address(), java.time.Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            Collector in = new Collector();
            socket.inbound(in);
            Random r = new Random(11);
            List<Integer> sizes = new ArrayList<>();
            for (int s : fixedSizes) {
                sizes.add(s);
            }
            for (int i = 0; i < randomCount; i++) {
                sizes.add(r.nextInt(10) == 0 ? r.nextInt(4 << 20) : r.nextInt(20_000));
            }
            List<Long> sums = new ArrayList<>();
            int window = 16;
            int sent = 0;
            int received = 0;
            while (received < sizes.size()) {
                while (sent < sizes.size() && sent - received < window) {
                    ByteBuf p = payload(h, sizes.get(sent), r);
                    sums.add(crc(p));
                    assertThat(socket.offer(p)).as("offer; inbound so far: %s", in.items).isTrue();
                    sent++;
                }
                ByteBuf echo = in.take(h);
                assertThat(echo.readableBytes()).as("message %d", received).isEqualTo(sizes.get(received));
                assertThat(crc(echo)).as("checksum of message %d (%d bytes)", received, sizes.get(received)).isEqualTo(sums.get(received));
                echo.release();
                socket.consumed(1);
                received++;
            }
            EngineMetrics m = h.client.metrics();
            assertThat(m.rnrEvents()).isZero();
            assertThat(m.rendezvousRoundTrips()).as("client answered the server's large echoes").isPositive();
            assertThat(h.server.metrics().rendezvousRoundTrips()).as("server answered the client's large messages").isPositive();
            assertThat(m.copiesOnSend()).as("payloads born in registered memory are not copied").isZero();
            socket.close();
        }
    }
}
