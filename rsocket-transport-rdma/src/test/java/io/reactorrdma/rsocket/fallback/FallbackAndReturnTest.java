package io.reactorrdma.rsocket.fallback;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.reactorrdma.rsocket.RdmaDuplexConnection;
import io.reactorrdma.rsocket.RdmaServerTransport;
import io.reactorrdma.rsocket.testing.CountingServer;
import io.reactorrdma.rsocket.testing.LiveBufferWait;
import io.reactorrdma.verbs.ProviderUnavailableException;
import io.rsocket.DuplexConnection;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketClient;
import io.rsocket.core.RSocketConnector;
import io.rsocket.loadbalance.LoadbalanceRSocketClient;
import io.rsocket.loadbalance.LoadbalanceTarget;
import io.rsocket.exceptions.CanceledException;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.plugins.DuplexConnectionInterceptor;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.util.DefaultPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Sinks;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fallback transport and its switching connection in one JVM: a dual server on the loopback
 * fabric and TCP, and a client whose RDMA side a gate keeps unavailable until the test opens it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FallbackAndReturnTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private RdmaResources serverResources;
    private RdmaResources clientResources;
    private final CountingServer counting = new CountingServer();
    private DualServer server;
    private GatedTransport rdma;
    private GatedTransport tcp;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AtomicReference<DuplexConnection> source = new AtomicReference<>();
    private RSocket client;
    private RSocketClient balanced;

    @BeforeEach
    void start() {
        serverResources = RdmaResources.builder("fallback-server").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        clientResources = RdmaResources.builder("fallback-client").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        server = RdmaServers.dual(counting.server(),
                        RdmaServerTransport.create(RdmaServer.create().port(0).runOn(serverResources)),
                        new InetSocketAddress("127.0.0.1", 0))
                .block(WAIT);
        rdma = new GatedTransport(RdmaClientTransport.create(RdmaClient.create().port(server.rdmaAddress().getPort())
                .runOn(clientResources)), false);
        tcp = new GatedTransport(TcpClientTransport.create(server.tcpAddress()), true);
    }

    private RSocket connect(FallbackClientTransport.Builder transport) {
        return connector().connect(transport.meterRegistry(registry).build()).block(WAIT);
    }

    private RSocketConnector connector() {
        return RSocketConnector.create()
                .setupPayload(DefaultPayload.create("hello-setup"))
                .payloadDecoder(PayloadDecoder.ZERO_COPY)
                .interceptors(r -> r.forConnection((type, c) -> {
                    if (type == DuplexConnectionInterceptor.Type.SOURCE) {
                        source.set(c);
                    }
                    return c;
                }));
    }

    private static FallbackClientTransport.Builder quickProbes(FallbackClientTransport.Builder b) {
        return b.firstProbeDelay(Duration.ofMillis(50)).probeInterval(Duration.ofMillis(200));
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.dispose();
            client.onClose().onErrorResume(e -> reactor.core.publisher.Mono.empty()).block(WAIT);
        }
        if (balanced != null) {
            balanced.dispose();
            await(() -> source.get() == null || source.get().isDisposed(), "the balanced client's connection closed");
        }
        server.dispose();
        server.onClose().block(WAIT);
        clientResources.dispose();
        serverResources.dispose();
        await(() -> clientResources.allocator().liveBuffers() == 0 && serverResources.allocator().liveBuffers() == 0, "buffers released");
        assertThat(clientResources.allocator().liveBuffers()).as("client live buffers").isZero();
        assertThat(serverResources.allocator().liveBuffers()).as("server live buffers").isZero();
    }

    private static void await(BooleanSupplier condition, String what) {
        LiveBufferWait.until(WAIT, condition, what);
    }

    private String rr(String data) {
        return client.requestResponse(DefaultPayload.create(data)).map(CountingServer::data).block(WAIT);
    }

    private double fallbacks(String cause) {
        return registry.find("rdma.fallbacks").tag("cause", cause).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    private double returns() {
        return registry.find("rdma.returns").counter() == null ? 0 : registry.find("rdma.returns").counter().count();
    }

    @Test
    void connectsOverRdmaWhenItCanWithoutFallingBack() {
        rdma.open.set(true);
        client = connect(FallbackClientTransport.builder(rdma, tcp));
        assertThat(rr("a")).isEqualTo("re:a");
        assertThat(source.get()).isInstanceOf(RdmaDuplexConnection.class);
        assertThat(counting.rdmaRequests.get()).isEqualTo(1);
        assertThat(counting.tcpRequests.get()).isZero();
        assertThat(registry.find("rdma.fallbacks").counters()).isEmpty();
    }

    /**
     * On TCP while RDMA is closed; a channel opened on TCP keeps going there after the return (its
     * later frames are routed to TCP, the server echoes them), new requests go over RDMA, the SETUP
     * was replayed, and TCP closes once the channel ended.
     */
    @Test
    void fallsBackToTcpThenReturnsToRdmaAndClosesTcpOnceItsStreamsEnded() {
        client = connect(quickProbes(FallbackClientTransport.builder(rdma, tcp)));
        assertThat(rr("a")).isEqualTo("re:a");
        assertThat(counting.tcpRequests.get()).isEqualTo(1);
        assertThat(counting.rdmaRequests.get()).isZero();
        assertThat(fallbacks("ProviderUnavailableException")).isEqualTo(1.0);
        assertThat(source.get()).isInstanceOf(SwitchingDuplexConnection.class);
        SwitchingDuplexConnection switching = (SwitchingDuplexConnection) source.get();
        DuplexConnection tcpConnection = tcp.connections.get(0);

        Sinks.Many<Payload> out = Sinks.many().unicast().onBackpressureBuffer();
        List<String> echoed = new CopyOnWriteArrayList<>();
        AtomicBoolean completed = new AtomicBoolean();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        client.requestChannel(out.asFlux()).map(CountingServer::data).subscribe(echoed::add, failed::set, () -> completed.set(true));
        out.tryEmitNext(DefaultPayload.create("m0"));
        await(() -> echoed.contains("ch:m0"), "the first echo over TCP");

        rdma.open.set(true);
        await(() -> returns() == 1.0, "the return to RDMA");
        assertThat(switching.current()).isInstanceOf(RdmaDuplexConnection.class);
        assertThat(rr("b")).isEqualTo("re:b");
        assertThat(counting.rdmaRequests.get()).as("requests over RDMA").isEqualTo(1);
        assertThat(counting.tcpRequests.get()).as("requests over TCP: rr a, the channel").isEqualTo(2);
        assertThat(counting.setups).as("the SETUP, replayed on RDMA").containsExactly("hello-setup", "hello-setup");

        out.tryEmitNext(DefaultPayload.create("m1"));
        await(() -> echoed.contains("ch:m1"), "an echo of a frame sent after the return, on the channel's TCP connection");
        assertThat(tcpConnection.isDisposed()).as("TCP still carries the channel").isFalse();
        assertThat(switching.drainingConnections()).isEqualTo(1);

        out.tryEmitComplete();
        await(completed::get, "the channel's completion");
        await(tcpConnection::isDisposed, "TCP closed after its last stream");
        assertThat(failed.get()).isNull();
        assertThat(switching.drainingConnections()).isZero();
        assertThat(echoed).containsExactly("ch:m0", "ch:m1");
        assertThat(rr("c")).isEqualTo("re:c");
        assertThat(counting.rdmaRequests.get()).isEqualTo(2);
    }

    @Test
    void theDrainTimeoutClosesTcpAndEndsItsStreamsWithAnError() {
        client = connect(quickProbes(FallbackClientTransport.builder(rdma, tcp)).drainTimeout(Duration.ofMillis(300)));
        List<String> items = new CopyOnWriteArrayList<>();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        client.requestStream(DefaultPayload.create("tick:-1:20")).map(CountingServer::data).subscribe(items::add, failed::set);
        await(() -> items.size() >= 3, "items over TCP");
        rdma.open.set(true);
        await(() -> failed.get() != null, "the endless TCP stream ended by the drain timeout");
        assertThat(failed.get()).isInstanceOf(CanceledException.class).hasMessageContaining("draining");
        await(tcp.connections.get(0)::isDisposed, "TCP closed");
        assertThat(returns()).isEqualTo(1.0);
        assertThat(rr("after")).isEqualTo("re:after");
        assertThat(counting.rdmaRequests.get()).isEqualTo(1);
    }

    @Test
    void returnsWithNothingInFlightClosesTcpAtOnce() {
        client = connect(quickProbes(FallbackClientTransport.builder(rdma, tcp)));
        assertThat(rr("a")).isEqualTo("re:a");
        rdma.open.set(true);
        await(() -> returns() == 1.0, "the return to RDMA");
        await(tcp.connections.get(0)::isDisposed, "TCP closed");
        assertThat(rr("b")).isEqualTo("re:b");
        assertThat(counting.rdmaRequests.get()).isEqualTo(1);
    }

    @Test
    void whenNeitherConnectsTheErrorIsTcpsWithRdmasSuppressed() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        FallbackClientTransport transport = FallbackClientTransport.builder(rdma, TcpClientTransport.create("127.0.0.1", closedPort))
                .meterRegistry(registry).build();
        assertThatThrownBy(() -> transport.connect().block(WAIT))
                .satisfies(e -> assertThat(reactor.core.Exceptions.unwrap(e).getSuppressed())
                        .anySatisfy(s -> assertThat(s).isInstanceOf(ProviderUnavailableException.class)));
        assertThat(fallbacks("ProviderUnavailableException")).as("no TCP connection was made: no fallback").isZero();
    }

    /**
     * The server times a connection out when the client's KEEPALIVEs stop (here after 1 s): the
     * draining TCP connection gets copies of them, so a channel on it outlives that by far.
     */
    @Test
    void aDrainingConnectionIsKeptAliveWhileItsStreamsRun() throws InterruptedException {
        client = connector().keepAlive(Duration.ofMillis(100), Duration.ofMillis(1000))
                .connect(quickProbes(FallbackClientTransport.builder(rdma, tcp)).meterRegistry(registry).build()).block(WAIT);
        Sinks.Many<Payload> out = Sinks.many().unicast().onBackpressureBuffer();
        List<String> echoed = new CopyOnWriteArrayList<>();
        AtomicBoolean completed = new AtomicBoolean();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        client.requestChannel(out.asFlux()).map(CountingServer::data).subscribe(echoed::add, failed::set, () -> completed.set(true));
        out.tryEmitNext(DefaultPayload.create("m0"));
        await(() -> echoed.contains("ch:m0"), "the first echo over TCP");
        rdma.open.set(true);
        await(() -> returns() == 1.0, "the return to RDMA");
        Thread.sleep(2500); // 2.5 times the keepalive timeout
        assertThat(tcp.connections.get(0).isDisposed()).as("TCP kept alive").isFalse();
        out.tryEmitNext(DefaultPayload.create("m1"));
        await(() -> echoed.contains("ch:m1"), "an echo on the draining connection");
        out.tryEmitComplete();
        await(completed::get, "the channel's completion");
        await(tcp.connections.get(0)::isDisposed, "TCP closed after its last stream");
        assertThat(failed.get()).isNull();
        assertThat(rr("after")).isEqualTo("re:after");
    }

    /** The transport in RSocket's load balancer, as a replica's target: the pool connects through it and it returns to RDMA. */
    @Test
    void worksAsALoadbalanceTarget() {
        balanced = LoadbalanceRSocketClient.builder(reactor.core.publisher.Mono.just(List.of(LoadbalanceTarget.from("ps-0",
                        quickProbes(FallbackClientTransport.builder(rdma, tcp)).meterRegistry(registry).build()))))
                .connector(connector())
                .roundRobinLoadbalanceStrategy()
                .build();
        assertThat(balanced.requestResponse(reactor.core.publisher.Mono.fromSupplier(() -> DefaultPayload.create("a")))
                .map(CountingServer::data).block(WAIT)).isEqualTo("re:a");
        assertThat(counting.tcpRequests.get()).isEqualTo(1);
        rdma.open.set(true);
        await(() -> returns() == 1.0, "the return to RDMA");
        assertThat(balanced.requestResponse(reactor.core.publisher.Mono.fromSupplier(() -> DefaultPayload.create("b")))
                .map(CountingServer::data).block(WAIT)).isEqualTo("re:b");
        assertThat(counting.rdmaRequests.get()).isEqualTo(1);
    }

    @Test
    void optionsAreChecked() {
        assertThatThrownBy(() -> FallbackClientTransport.builder(rdma, tcp).rdmaConnectTimeout(Duration.ofSeconds(5))
                .totalConnectTimeout(Duration.ofSeconds(5)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must exceed rdmaConnectTimeout");
        assertThatThrownBy(() -> FallbackClientTransport.builder(rdma, tcp).probeInterval(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("probeInterval must be positive");
    }
}
