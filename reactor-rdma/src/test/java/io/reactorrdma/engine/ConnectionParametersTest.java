package io.reactorrdma.engine;

import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.EngineConfig;
import io.netty.buffer.ByteBuf;
import io.reactorrdma.DisposableRdmaServer;
import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaConnection;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.RdmaResourcesTestAccess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the two ends agree on at connect, end to end over loopback with
 * different configurations on each side.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConnectionParametersTest {

    private RdmaResources serverResources;
    private RdmaResources clientResources;
    private DisposableRdmaServer server;

    private void start(EngineConfig serverConfig, EngineConfig clientConfig,
                       java.util.function.Function<RdmaConnection, org.reactivestreams.Publisher<Void>> handler) {
        serverResources = RdmaResources.builder("server").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF)
                .engine(serverConfig).build();
        clientResources = RdmaResources.builder("client").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF)
                .engine(clientConfig).build();
        server = RdmaServer.create().port(0).runOn(serverResources).handleConnection(handler::apply).bindNow();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.disposeNow(Duration.ofSeconds(10));
        }
        if (clientResources != null) {
            clientResources.dispose();
        }
        if (serverResources != null) {
            serverResources.dispose();
        }
        if (clientResources != null) {
            assertThat(clientResources.allocator().liveBuffers()).as("client live buffers").isZero();
        }
        if (serverResources != null) {
            assertThat(serverResources.allocator().liveBuffers()).as("server live buffers").isZero();
        }
    }

    private RdmaConnection connect() {
        return RdmaClient.create().port(server.port()).runOn(clientResources).connectNow(Duration.ofSeconds(30));
    }

    private static ByteBuf message(RdmaConnection c, int size, int value) {
        ByteBuf b = c.alloc().directBuffer(size, size);
        for (int i = 0; i < size; i++) {
            b.writeByte(value + i);
        }
        return b;
    }

    /** Echoes every message back on its connection. */
    private static org.reactivestreams.Publisher<Void> echo(RdmaConnection c) {
        return c.outbound().send(c.receive()).then();
    }

    @Test
    void theReceiversSocketWindowGovernsASenderWithAnotherWindow() throws Exception {
        // Before the fix each side started its sender at its own window (8 here) and the default server
        // granted more only after 16 consumed messages: the client stalled after 8, forever.
        start(EngineConfig.defaults(), EngineConfig.defaults().withSocketMessageWindow(8), ConnectionParametersTest::echo);
        RdmaConnection c = connect();
        int count = 3000;
        AtomicInteger echoed = new AtomicInteger();
        CountDownLatch all = new CountDownLatch(count);
        c.receive().subscribe(b -> {
            if (b.readableBytes() == 64) {
                echoed.incrementAndGet();
            }
            b.release();
            all.countDown();
        });
        for (int i = 0; i < count; i++) {
            assertThat(c.sendNow(message(c, 64, i))).isTrue();
        }
        assertThat(all.await(60, TimeUnit.SECONDS)).as("all %d messages echoed (got %d)", count, count - all.getCount()).isTrue();
        assertThat(echoed.get()).isEqualTo(count);
        c.dispose();
        c.onDispose().block(Duration.ofSeconds(10));
    }

    @Test
    void aMessageAboveThePeersLimitFailsOnTheSenderAndTheConnectionGoesOn() throws Exception {
        // Before the fix the request reached the server, whose ProtocolException killed the queue pair
        // and every socket on it.
        int serverLimit = 64 * 1024;
        start(EngineConfig.defaults().withMaxMessageSize(serverLimit), EngineConfig.defaults(), ConnectionParametersTest::echo);
        RdmaConnection a = connect();
        RdmaConnection b = connect();
        assertThat(RdmaResourcesTestAccess.domains(clientResources)[0].metrics().engines())
                .as("both connections share one queue pair").isEqualTo(1);
        assertThat(a.maxMessageSize()).as("the agreed limit").isEqualTo(serverLimit);
        long requestsBefore = RdmaResourcesTestAccess.domains(serverResources)[0].metrics().rendezvousRoundTrips();

        ByteBuf big = message(a, serverLimit + 1, 1);
        assertThatThrownBy(() -> a.outbound().send(Mono.just(big)).then().block(Duration.ofSeconds(30)))
                .isInstanceOf(MessageTooLargeException.class)
                .hasMessageContaining(String.valueOf(serverLimit + 1))
                .hasMessageContaining("peer's maximum message size of " + serverLimit);
        assertThat(big.refCnt()).as("the refused message was released").isZero();
        assertThat(RdmaResourcesTestAccess.domains(serverResources)[0].metrics().rendezvousRoundTrips()).as("nothing reached the server")
                .isEqualTo(requestsBefore);

        for (RdmaConnection c : new RdmaConnection[]{a, b}) {
            var back = c.receive().take(2).map(m -> {
                int n = m.readableBytes();
                m.release();
                return n;
            }).collectList().toFuture();
            c.outbound().send(Mono.just(message(c, 100, 2))).then().block(Duration.ofSeconds(30));
            c.outbound().send(Mono.just(message(c, serverLimit, 3))).then().block(Duration.ofSeconds(30));
            assertThat(back.get(30, TimeUnit.SECONDS)).as("the connection still works, up to the limit").containsExactly(100, serverLimit);
        }
        a.dispose();
        b.dispose();
        a.onDispose().block(Duration.ofSeconds(10));
        b.onDispose().block(Duration.ofSeconds(10));
    }

    /** Messages a side received other than eagerly: by WRITE rendezvous (it answered) or by pull (it read them). */
    private static long notEager(EngineMetrics receiver) {
        return receiver.rendezvousRoundTrips() + receiver.messagesPulled();
    }

    @Test
    void aSenderSendsEagerlyUpToTheReceiversBufferSoRepliesToAClientNeedNoRendezvous() throws Exception {
        // Before: each side sent eagerly up to the smaller of the two eager sizes, so a server with
        // 8 KiB buffers made every reply over 8 KiB wait for the client's rendezvous answer.
        start(EngineConfig.defaults(), EngineConfig.defaults(), ConnectionParametersTest::echo);
        RdmaConnection c = connect();
        var serverDomain = RdmaResourcesTestAccess.domains(serverResources)[0].metrics();
        var clientDomain = RdmaResourcesTestAccess.domains(clientResources)[0].metrics();
        int[] sizes = {EngineConfig.DEFAULT_EAGER_SIZE, 32 * 1024, EngineConfig.DEFAULT_CLIENT_EAGER_SIZE, 100 * 1024};
        java.util.concurrent.LinkedBlockingQueue<Integer> echoes = new java.util.concurrent.LinkedBlockingQueue<>();
        c.receive().subscribe(m -> {
            int n = m.readableBytes();
            boolean intact = true;
            for (int i = 0; i < n; i++) {
                intact &= m.getByte(m.readerIndex() + i) == (byte) (7 + i);
            }
            m.release();
            echoes.add(intact ? n : -n);
        });
        long[] serverRounds = new long[sizes.length];
        long[] clientRounds = new long[sizes.length];
        for (int k = 0; k < sizes.length; k++) {
            long s0 = notEager(serverDomain);
            long c0 = notEager(clientDomain);
            c.outbound().send(Mono.just(message(c, sizes[k], 7))).then().block(Duration.ofSeconds(30));
            assertThat(echoes.poll(30, TimeUnit.SECONDS)).as("echo of " + sizes[k] + " bytes, intact").isEqualTo(sizes[k]);
            serverRounds[k] = notEager(serverDomain) - s0;
            clientRounds[k] = notEager(clientDomain) - c0;
        }
        assertThat(serverRounds).as("requests to the server over its 8 KiB buffers go by rendezvous").containsExactly(0, 1, 1, 1);
        assertThat(clientRounds).as("replies fit the client's 64 KiB buffers; 100 KiB is over a fragment").containsExactly(0, 0, 0, 1);
        c.dispose();
        c.onDispose().block(Duration.ofSeconds(10));
    }

    @Test
    void aClientWithSmallBuffersGetsLargeRepliesByRendezvousAsBefore() throws Exception {
        start(EngineConfig.defaults(), EngineConfig.defaults().withClientEagerSize(EngineConfig.DEFAULT_EAGER_SIZE),
                ConnectionParametersTest::echo);
        RdmaConnection c = connect();
        var clientDomain = RdmaResourcesTestAccess.domains(clientResources)[0].metrics();
        var back = c.receive().take(1).map(m -> {
            int n = m.readableBytes();
            m.release();
            return n;
        }).collectList().toFuture();
        c.outbound().send(Mono.just(message(c, 32 * 1024, 1))).then().block(Duration.ofSeconds(30));
        assertThat(back.get(30, TimeUnit.SECONDS)).containsExactly(32 * 1024);
        assertThat(notEager(clientDomain)).as("the client pulled the reply (or answered its rendezvous)").isEqualTo(1);
        c.dispose();
        c.onDispose().block(Duration.ofSeconds(10));
    }

    @Test
    void aMismatchedProtocolVersionIsRefusedAtConnectNamingBothVersions() {
        start(EngineConfig.defaults(), EngineConfig.defaults(), ConnectionParametersTest::echo);
        RdmaResourcesTestAccess.domains(clientResources)[0].protocolVersion((short) (ConnectionParameters.VERSION + 1));
        assertThatThrownBy(this::connect)
                .hasMessageContaining("version " + (ConnectionParameters.VERSION + 1))
                .hasMessageContaining("version " + ConnectionParameters.VERSION)
                .hasMessageContaining("refused");
        assertThat(RdmaResourcesTestAccess.domains(serverResources)[0].metrics().engines()).as("no engine on the server").isZero();
        RdmaResourcesTestAccess.domains(clientResources)[0].protocolVersion(ConnectionParameters.VERSION);
        RdmaConnection c = connect(); // the same domains connect once the versions agree
        c.dispose();
        c.onDispose().block(Duration.ofSeconds(10));
    }

    @Test
    void parametersRoundTripWithinTheConnectPrivateDataLimit() {
        ConnectionParameters p = new ConnectionParameters(ConnectionParameters.VERSION, 64, 8192, 16 << 20, 8);
        java.nio.ByteBuffer wire = p.encode();
        assertThat(wire.remaining()).isEqualTo(ConnectionParameters.SIZE)
                .isLessThanOrEqualTo(io.reactorrdma.verbs.soft.SoftLimits.MAX_CONNECT_PRIVATE_DATA);
        assertThat(ConnectionParameters.decode(wire, "peer", ConnectionParameters.VERSION)).isEqualTo(p);
        assertThatThrownBy(() -> ConnectionParameters.decode(
                new ConnectionParameters(ConnectionParameters.VERSION, 64, 8192, 0, 8).encode(), "peer", ConnectionParameters.VERSION))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("maximum message size 0");
    }

    @Test
    void version4CarriesThePullCapabilityAndTheReadLimitAtTheirOffsets() {
        ConnectionParameters p = new ConnectionParameters(ConnectionParameters.VERSION, 64, 8192, 16 << 20, 8,
                ConnectionParameters.PULL, 4);
        java.nio.ByteBuffer wire = p.encode().order(java.nio.ByteOrder.LITTLE_ENDIAN);
        assertThat(ConnectionParameters.VERSION).isEqualTo((short) 5);
        assertThat(wire.getInt(0)).isEqualTo(ConnectionParameters.MAGIC);
        assertThat(wire.getShort(4)).isEqualTo(ConnectionParameters.VERSION);
        assertThat(wire.getInt(24)).isEqualTo(ConnectionParameters.PULL);
        assertThat(wire.getShort(28)).isEqualTo((short) 4);
        ConnectionParameters back = ConnectionParameters.decode(wire, "peer", ConnectionParameters.VERSION);
        assertThat(back).isEqualTo(p);
        assertThat(back.pulls()).isTrue();
        assertThat(ConnectionParameters.of(ConnectionParameters.VERSION, EngineConfig.defaults(), true).pulls())
                .as("pull rendezvous is on by default").isTrue();
        assertThat(ConnectionParameters.of(ConnectionParameters.VERSION, EngineConfig.defaults().withPullRendezvous(false), false).pulls())
                .isFalse();
        assertThatThrownBy(() -> ConnectionParameters.decode(
                new ConnectionParameters(ConnectionParameters.VERSION, 64, 8192, 1 << 20, 8, 2, 4).encode(), "peer",
                ConnectionParameters.VERSION))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("unknown capability bits 0x2");
        assertThatThrownBy(() -> ConnectionParameters.decode(
                new ConnectionParameters(ConnectionParameters.VERSION, 64, 8192, 1 << 20, 8, 1, 0).encode(), "peer",
                ConnectionParameters.VERSION))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("0 inbound READs");
    }
}
