package io.reactorrdma.rsocket.fallback;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.rsocket.RdmaDuplexConnection;
import io.reactorrdma.rsocket.testing.CountingServer;
import io.reactorrdma.rsocket.testing.LiveBufferWait;
import io.reactorrdma.config.SoftConfig;
import io.rsocket.DuplexConnection;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketClient;
import io.rsocket.core.RSocketConnector;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.plugins.DuplexConnectionInterceptor;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.util.DefaultPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Chaos around RDMA with a server in another JVM ({@link DualServerMain}, shm fabric + TCP): RDMA
 * unavailable when the client starts, then available; RDMA failing mid-run while TCP stays.
 * After each: no live registered buffer on either side, no shm file left, no client I/O thread left.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FallbackChaosTest {

    private static final Duration PEER_TIMEOUT = Duration.ofMillis(1000);
    private static final Duration PROBE_INTERVAL = Duration.ofMillis(500);
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String CLIENT = "fallback-chaos-client";

    private ForkedDualServer server;
    private Path dir;
    private int rdmaPort;
    private int tcpPort;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private LazyRdmaClientTransport rdma;
    private GatedTransport tcp;
    private FallbackClientTransport transport;
    private final Queue<DuplexConnection> sources = new ConcurrentLinkedQueue<>();
    private final List<reactor.core.Disposable> clients = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        server = ForkedDualServer.start("reactor-rdma-fallback", PEER_TIMEOUT);
        dir = server.dir;
        rdmaPort = server.rdmaPort;
        tcpPort = server.tcpPort;
        SoftConfig soft = SoftConfig.defaults().withShmDirectory(dir).withPeerTimeout(PEER_TIMEOUT);
        rdma = LazyRdmaClientTransport.create(() -> RdmaResources.builder(CLIENT).provider("shm").softConfig(soft).threads(1)
                .idle(IdleStrategy.BLOCK).build(), "127.0.0.1", rdmaPort);
        tcp = new GatedTransport(TcpClientTransport.create("127.0.0.1", tcpPort), true);
        transport = FallbackClientTransport.builder(rdma, tcp).rdmaConnectTimeout(Duration.ofSeconds(3))
                .totalConnectTimeout(Duration.ofSeconds(15)).firstProbeDelay(Duration.ofMillis(100)).probeInterval(PROBE_INTERVAL)
                .meterRegistry(registry).build();
    }

    @AfterEach
    void stop() throws Exception {
        try {
            clients.forEach(reactor.core.Disposable::dispose);
            rdma.dispose();
            RdmaResources resources = rdma.resources().orElse(null);
            if (resources != null) {
                await(() -> resources.allocator().liveBuffers() == 0, "client buffers released");
                assertThat(resources.allocator().liveBuffers()).as("client live registered buffers").isZero();
            }
            server.stopAndCheck();
            await(() -> Thread.getAllStackTraces().keySet().stream()
                    .noneMatch(t -> t.getName().startsWith(CLIENT)), "client threads ended");
        } finally {
            server.destroy();
        }
    }

    private static void await(BooleanSupplier condition, String what) {
        LiveBufferWait.until(WAIT, condition, what);
    }

    private RSocketConnector connector() {
        return RSocketConnector.create().payloadDecoder(PayloadDecoder.ZERO_COPY)
                .interceptors(r -> r.forConnection((type, c) -> {
                    if (type == DuplexConnectionInterceptor.Type.SOURCE) {
                        sources.add(c);
                    }
                    return c;
                }));
    }

    private double counted(String name) {
        return registry.find(name).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    private static Mono<String> call(RSocket rs, String data) {
        return rs.requestResponse(DefaultPayload.create(data)).map(CountingServer::data);
    }

    @Test
    void rdmaUnavailableAtStartThenAvailable() throws Exception {
        // the client's shm provider refuses a directory others could read: ProviderUnavailableException
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        RSocket client = connector().connect(transport).block(WAIT);
        clients.add(client);
        for (int i = 0; i < 20; i++) {
            assertThat(call(client, "t" + i).block(WAIT)).isEqualTo("re:t" + i);
        }
        assertThat(server.stats()).as("requests over RDMA, TCP").containsExactly(0, 20);
        assertThat(registry.find("rdma.fallbacks").tag("cause", "ProviderUnavailableException").counter().count())
                .isGreaterThanOrEqualTo(1.0);
        assertThat(rdma.resources()).as("nothing built while the provider cannot open").isEmpty();
        CompletableFuture<String> inFlight = call(client, "slow:1500:in-flight").toFuture();
        await(() -> {
            try {
                return server.stats()[1] == 21;
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }, "the slow call at the server");

        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        long opened = System.nanoTime();
        await(() -> counted("rdma.returns") >= 1.0, "the return to RDMA");
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - opened);
        // the probe interval, plus building the resources and connecting, with slack for a busy host
        assertThat(tookMillis).as("ms from RDMA available to the return").isLessThan(PROBE_INTERVAL.toMillis() + 10_000);
        for (int i = 0; i < 20; i++) {
            assertThat(call(client, "r" + i).block(WAIT)).isEqualTo("re:r" + i);
        }
        assertThat(server.stats()).as("requests over RDMA, TCP").containsExactly(20, 21);
        assertThat(inFlight.get(30, TimeUnit.SECONDS)).as("the call in flight on TCP finished there").isEqualTo("re:in-flight");
        await(tcp.connections.get(0)::isDisposed, "TCP closed after its in-flight call");
        assertThat(((SwitchingDuplexConnection) sources.peek()).current()).isInstanceOf(RdmaDuplexConnection.class);
    }

    @Test
    void rdmaFailsMidRunWhileTcpStays() throws Exception {
        RSocketClient client = RSocketClient.from(connector().reconnect(Retry.fixedDelay(Long.MAX_VALUE, Duration.ofMillis(100)))
                .connect(transport));
        clients.add(client);
        for (int i = 0; i < 10; i++) {
            assertThat(client.requestResponse(Mono.fromSupplier(() -> DefaultPayload.create("a"))).map(CountingServer::data).block(WAIT))
                    .isEqualTo("re:a");
        }
        assertThat(server.stats()).containsExactly(10, 0);
        DuplexConnection rdmaConnection = sources.peek();
        assertThat(rdmaConnection).isInstanceOf(RdmaDuplexConnection.class);

        List<CompletableFuture<String>> plain = new ArrayList<>();
        List<CompletableFuture<String>> retried = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String data = "slow:3000:p" + i;
            plain.add(client.requestResponse(Mono.fromSupplier(() -> DefaultPayload.create(data))).map(CountingServer::data).toFuture());
        }
        for (int i = 0; i < 4; i++) {
            String data = "slow:3000:r" + i;
            // what a caller does for an idempotent call: retry on a closed connection (the next one falls back)
            retried.add(client.requestResponse(Mono.fromSupplier(() -> DefaultPayload.create(data))).map(CountingServer::data)
                    .retryWhen(Retry.backoff(10, Duration.ofMillis(100)).filter(e -> e instanceof ClosedChannelException))
                    .toFuture());
        }
        await(() -> {
            try {
                return server.stats()[0] == 18;
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }, "the eight slow calls at the server");
        assertThat(server.command("fail-rdma")).isEqualTo("OK");

        for (CompletableFuture<String> f : plain) {
            assertThat(f).failsWithin(WAIT).withThrowableThat().havingRootCause().isInstanceOf(ClosedChannelException.class);
        }
        // RSocket fails the calls in flight with its own ClosedChannelException; the transport's, naming the peer, closes the connection
        Throwable closed = rdmaConnection.onClose().then(Mono.<Throwable>empty()).onErrorResume(Mono::just).block(WAIT);
        assertThat(closed).isInstanceOf(ClosedChannelException.class);
        assertThat(closed.getCause()).as("why the RDMA connection closed").isNotNull();
        assertThat(closed.getCause().getMessage()).as("the cause: " + closed.getCause()).contains("peer");
        System.out.println("the RDMA connection closed with " + closed + " caused by " + closed.getCause());
        for (int i = 0; i < 4; i++) {
            assertThat(retried.get(i).get(30, TimeUnit.SECONDS)).isEqualTo("re:r" + i);
        }
        assertThat(server.stats()[1]).as("requests over TCP: the retried calls").isGreaterThanOrEqualTo(4);
        assertThat(counted("rdma.fallbacks")).isGreaterThanOrEqualTo(1.0);
        assertThat(client.requestResponse(Mono.fromSupplier(() -> DefaultPayload.create("b"))).map(CountingServer::data).block(WAIT))
                .isEqualTo("re:b");
    }
}
