package io.reactorrdma.rsocket.lease;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.reactorrdma.rsocket.RdmaServerTransport;
import io.reactorrdma.rsocket.testing.LiveBufferWait;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.rsocket.util.DefaultPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A server's leases follow its RDMA receive window: it never has more requests in progress than the window. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReceiveCapacityLeasesTest {

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private RdmaResources serverResources;
    private RdmaResources clientResources;
    private RdmaServerTransport.Bound server;
    private RSocket client;
    private final List<RSocket> moreClients = new ArrayList<>();
    private CloseableChannel tcpServer;
    private final AtomicInteger inProgress = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();

    @AfterEach
    void stop() {
        if (client != null) {
            moreClients.add(client);
        }
        for (RSocket c : moreClients) {
            c.dispose();
            c.onClose().onErrorResume(e -> Mono.empty()).block(Duration.ofSeconds(30));
        }
        if (server != null) {
            server.dispose();
        }
        if (tcpServer != null) {
            tcpServer.dispose();
        }
        if (clientResources != null) {
            clientResources.dispose();
        }
        if (serverResources != null) {
            serverResources.dispose();
        }
        if (clientResources != null) {
            LiveBufferWait.awaitZero(clientResources, serverResources);
        }
    }

    /** The slow server: answers after 5 ms, counting requests in progress and their peak. */
    private RSocketServer slowServer(ReceiveCapacityLeases leases) {
        return leases.applyTo(RSocketServer.create((setup, sendingSocket) -> Mono.just(new RSocket() {
            @Override
            public Mono<Payload> requestResponse(Payload p) {
                String d = p.getDataUtf8();
                p.release();
                peak.accumulateAndGet(inProgress.incrementAndGet(), Math::max);
                return Mono.delay(Duration.ofMillis(5))
                        .then(Mono.fromCallable(() -> {
                            inProgress.decrementAndGet();
                            return DefaultPayload.create("re:" + d);
                        }));
            }
        })));
    }

    private void startRdma(ReceiveCapacityLeases leases, int window) {
        EngineConfig engine = EngineConfig.defaults().withSocketMessageWindow(window);
        serverResources = RdmaResources.builder("lease-server").provider("loopback").threads(1)
                .idle(IdleStrategy.BACK_OFF).engine(engine).build();
        clientResources = RdmaResources.builder("lease-client").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        server = slowServer(leases)
                .bind(RdmaServerTransport.create(RdmaServer.create().port(0).runOn(serverResources)))
                .block(Duration.ofSeconds(30));
    }

    private RSocket connectRdma() {
        return RSocketConnector.create().lease()
                .connect(RdmaClientTransport.create(RdmaClient.create().port(server.address().getPort()).runOn(clientResources)))
                .block(Duration.ofSeconds(30));
    }

    /** {@code requests} request-responses from 64 callers (far more than the windows, fewer than RSocket's 256 waiting for a lease). */
    private static Mono<Long> answered(RSocket client, int requests) {
        return Flux.range(0, requests)
                .flatMap(i -> client.requestResponse(DefaultPayload.create("r" + i)).map(p -> {
                    boolean ok = p.getDataUtf8().equals("re:r" + i);
                    p.release();
                    return ok;
                }), 64)
                .filter(ok -> ok)
                .count();
    }

    @Test
    void theServerNeverHasMoreRequestsInProgressThanItsReceiveWindowAndNoRequestIsRejected() {
        int window = 8;
        ReceiveCapacityLeases leases = ReceiveCapacityLeases.builder().meterRegistry(meters).build();
        startRdma(leases, window);
        client = connectRdma();

        int requests = 400;
        Long answered = answered(client, requests).block(Duration.ofSeconds(50));

        assertThat(answered).as("every request answered, none rejected for lack of lease").isEqualTo(requests);
        assertThat(peak.get()).as("requests in progress at the server never above its receive window").isLessThanOrEqualTo(window);
        assertThat(peak.get()).as("the window was used, not one request at a time").isGreaterThan(1);
        assertThat(meters.counter("rdma.recovery.lease.rejected").count()).isZero();
        assertThat(meters.counter("rdma.recovery.lease.exhausted").count()).as("the client ran into the lease").isPositive();
        assertThat(meters.counter("rdma.recovery.lease.requests.granted").count()).isGreaterThanOrEqualTo(requests);
        assertThat(meters.counter("rdma.recovery.lease.granted").count()).isGreaterThanOrEqualTo(requests / window);
        LiveBufferWait.until(Duration.ofSeconds(10), () -> leases.inFlight() == 0);
        assertThat(leases.connections()).isEqualTo(1);
    }

    @Test
    void connectionsShareTheServersCapacityAndMaxInFlightCapsIt() {
        int window = 8;
        // No lending of idle grants here (a stalled CPU must not make a busy connection look idle): this is about the cap.
        ReceiveCapacityLeases leases = ReceiveCapacityLeases.builder().meterRegistry(meters).maxInFlight(12)
                .idleGrantTimeout(Duration.ofMinutes(1)).build();
        startRdma(leases, window);
        client = connectRdma();
        RSocket second = connectRdma();
        moreClients.add(second);

        List<Long> answered = Flux.merge(answered(client, 200), answered(second, 200)).collectList().block(Duration.ofSeconds(50));

        assertThat(answered).as("both clients fully served, none rejected").containsExactly(200L, 200L);
        assertThat(leases.connections()).isEqualTo(2);
        assertThat(peak.get()).as("in progress never above maxInFlight, below the two windows' 16").isLessThanOrEqualTo(12)
                .isGreaterThan(window / 2);
        assertThat(meters.counter("rdma.recovery.lease.rejected").count()).isZero();
    }

    @Test
    void aTcpConnectionBringsTheConfiguredCapacity() {
        int capacity = 4;
        ReceiveCapacityLeases leases = ReceiveCapacityLeases.builder().meterRegistry(meters).connectionCapacity(capacity).build();
        tcpServer = slowServer(leases).bind(TcpServerTransport.create("localhost", 0)).block(Duration.ofSeconds(30));
        client = RSocketConnector.create().lease().connect(TcpClientTransport.create(tcpServer.address())).block(Duration.ofSeconds(30));

        assertThat(answered(client, 100).block(Duration.ofSeconds(50))).isEqualTo(100);
        assertThat(peak.get()).as("requests in progress never above the TCP connection's capacity")
                .isLessThanOrEqualTo(capacity).isGreaterThan(1);
        assertThat(meters.counter("rdma.recovery.lease.rejected").count()).isZero();
    }

    @Test
    void badOptionsSayWhatIsWrong() {
        assertThatThrownBy(() -> ReceiveCapacityLeases.builder().connectionCapacity(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connectionCapacity must be at least 1");
        assertThatThrownBy(() -> ReceiveCapacityLeases.builder().leaseTimeToLive(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTimeToLive");
        assertThatThrownBy(() -> ReceiveCapacityLeases.builder().maxInFlight(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxInFlight");
        assertThatThrownBy(() -> ReceiveCapacityLeases.builder().idleGrantTimeout(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("idleGrantTimeout");
    }
}
