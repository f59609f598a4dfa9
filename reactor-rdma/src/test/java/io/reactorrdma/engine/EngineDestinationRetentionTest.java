package io.reactorrdma.engine;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.memory.AllocatorConfig;
import io.reactorrdma.memory.AllocatorStatistics;
import io.reactorrdma.verbs.soft.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 14: several large messages in flight over one engine re-registered destination blocks for
 * every burst (the working set swings over several blocks, and each block beyond the retained one
 * was released the moment it emptied). The engine now trims its destination pool once per
 * heartbeat interval instead, releasing only blocks that stayed empty from one trim to the next.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EngineDestinationRetentionTest {

    private static final int SOCKETS = 4;
    private static final int MESSAGE = 1 << 20;

    private static long destinationRegistrations(EngineHarness h) {
        return h.clientMemory.destinationStatistics().registrations() + h.serverMemory.destinationStatistics().registrations();
    }

    /** One burst: a 1 MiB message on each socket, echoed; the echoes are released once all are back. */
    private static void burst(EngineHarness h, List<EngineSocket> sockets, List<EngineTest.Collector> inbound) throws Exception {
        for (EngineSocket s : sockets) {
            ByteBuf p = h.clientMemory.byteBufAllocator().directBuffer(MESSAGE);
            p.writerIndex(MESSAGE);
            assertThat(s.offer(p)).as("offer").isTrue();
        }
        List<ByteBuf> echoes = new ArrayList<>();
        for (int i = 0; i < sockets.size(); i++) {
            ByteBuf echo = inbound.get(i).take(h);
            assertThat(echo.readableBytes()).isEqualTo(MESSAGE);
            echoes.add(echo);
        }
        for (int i = 0; i < sockets.size(); i++) {
            echoes.get(i).release();
            sockets.get(i).consumed(1);
        }
    }

    private static List<EngineSocket> open(EngineHarness h, List<EngineTest.Collector> inbound) throws Exception {
        List<EngineSocket> sockets = new ArrayList<>();
        for (int i = 0; i < SOCKETS; i++) {
            EngineSocket s = h.client.openSocket(h.address(), Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            EngineTest.Collector c = new EngineTest.Collector();
            s.inbound(c);
            sockets.add(s);
            inbound.add(c);
        }
        return sockets;
    }

    @Test
    void fourSocketsWithLargeMessagesInFlightStopRegisteringAfterWarmUp() throws Exception {
        // A long trim period, so that a stall of this busy machine between bursts cannot decide the outcome.
        EngineConfig config = EngineConfig.defaults().withHeartbeatInterval(Duration.ofSeconds(60));
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults()), config, IdleStrategy.BLOCK,
                EngineHarness.echo())) {
            List<EngineTest.Collector> inbound = new ArrayList<>();
            List<EngineSocket> sockets = open(h, inbound);
            for (int i = 0; i < 3; i++) {
                burst(h, sockets, inbound);
            }
            long warm = destinationRegistrations(h);
            assertThat(warm).as("destination blocks registered in the warm-up").isPositive();
            for (int i = 0; i < 40; i++) {
                burst(h, sockets, inbound);
            }
            assertThat(destinationRegistrations(h)).as("destination registrations after 40 more bursts of %d x 1 MiB (warm-up: %d)",
                    SOCKETS, warm).isEqualTo(warm);
            sockets.forEach(EngineSocket::close);
        }
    }

    @Test
    void anIdleEngineTrimsItsDestinationPoolBackToTheRetainedBytes() throws Exception {
        EngineConfig config = EngineConfig.defaults().withHeartbeatInterval(Duration.ofMillis(20));
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults()), config, IdleStrategy.BLOCK,
                EngineHarness.echo())) {
            List<EngineTest.Collector> inbound = new ArrayList<>();
            List<EngineSocket> sockets = open(h, inbound);
            for (int i = 0; i < 3; i++) {
                burst(h, sockets, inbound);
            }
            long bound = AllocatorConfig.DEFAULT_DESTINATION_RETAINED_BYTES;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            AllocatorStatistics client;
            AllocatorStatistics server;
            do {
                Thread.sleep(10);
                client = h.clientMemory.destinationStatistics();
                server = h.serverMemory.destinationStatistics();
            } while ((client.registeredBytes() > bound || server.registeredBytes() > bound) && System.nanoTime() < deadline);
            assertThat(client.registeredBytes()).as("client destination bytes once idle: %s", client).isLessThanOrEqualTo(bound);
            assertThat(server.registeredBytes()).as("server destination bytes once idle: %s", server).isLessThanOrEqualTo(bound);
            assertThat(client.deregistrations() + server.deregistrations()).as("blocks beyond the bound were released").isPositive();
            sockets.forEach(EngineSocket::close);
        }
    }
}
