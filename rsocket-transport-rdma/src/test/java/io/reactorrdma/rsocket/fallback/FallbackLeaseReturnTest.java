package io.reactorrdma.rsocket.fallback;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.reactorrdma.rsocket.RdmaServerTransport;
import io.reactorrdma.rsocket.lease.ReceiveCapacityLeases;
import io.reactorrdma.rsocket.testing.CountingServer;
import io.reactorrdma.rsocket.testing.LiveBufferWait;
import io.rsocket.DuplexConnection;
import io.rsocket.Payload;
import io.rsocket.RSocket;
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
import reactor.core.publisher.Sinks;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A leased session that fell back to TCP returns to RDMA while the server has no lease to give
 * the RDMA connection yet (its capacity held by the TCP connection; no lending within the test):
 * new requests stay on TCP under the lease they were counted under, none is rejected, and the
 * session moves to RDMA with its first lease.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FallbackLeaseReturnTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private RdmaResources serverResources;
    private RdmaResources clientResources;
    private final CountingServer counting = new CountingServer();
    private final SimpleMeterRegistry serverMeters = new SimpleMeterRegistry();
    private final SimpleMeterRegistry clientMeters = new SimpleMeterRegistry();
    private ReceiveCapacityLeases leases;
    private DualServer server;
    private GatedTransport rdma;
    private GatedTransport tcp;
    private RSocket client;

    private final AtomicReference<DuplexConnection> source = new AtomicReference<>();

    @BeforeEach
    void start() {
        serverResources = RdmaResources.builder("lease-return-server").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        clientResources = RdmaResources.builder("lease-return-client").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
    }

    /** A dual server that grants leases for at most {@code maxInFlight} requests in flight, never lending idle grants in a test. */
    private void serve(int maxInFlight) {
        leases = ReceiveCapacityLeases.builder().meterRegistry(serverMeters).maxInFlight(maxInFlight)
                .idleGrantTimeout(Duration.ofHours(1)).build();
        server = RdmaServers.dual(leases.applyTo(counting.server()),
                        RdmaServerTransport.create(RdmaServer.create().port(0).runOn(serverResources)),
                        new InetSocketAddress("127.0.0.1", 0))
                .block(WAIT);
        rdma = new GatedTransport(RdmaClientTransport.create(RdmaClient.create().port(server.rdmaAddress().getPort())
                .runOn(clientResources)), false);
        tcp = new GatedTransport(TcpClientTransport.create(server.tcpAddress()), true);
    }

    /** A leased client over the fallback transport, on TCP while RDMA is closed. */
    private void connect() {
        client = RSocketConnector.create().lease().setupPayload(DefaultPayload.create("hello-setup"))
                .payloadDecoder(PayloadDecoder.ZERO_COPY)
                .interceptors(r -> r.forConnection((type, c) -> {
                    if (type == DuplexConnectionInterceptor.Type.SOURCE) {
                        source.set(c);
                    }
                    return c;
                }))
                .connect(FallbackClientTransport.builder(rdma, tcp).firstProbeDelay(Duration.ofMillis(50))
                        .probeInterval(Duration.ofMillis(200))
                        .meterRegistry(clientMeters).build())
                .block(WAIT);
    }

    /** Opens a channel on TCP, which holds one request of the lease and keeps TCP open across the return, and waits for its first echo. */
    private Channel channel() {
        Channel ch = new Channel();
        client.requestChannel(ch.out.asFlux()).map(CountingServer::data)
                .subscribe(ch.echoed::add, ch.failed::set, () -> ch.completed.set(true));
        ch.out.tryEmitNext(DefaultPayload.create("m0"));
        LiveBufferWait.until(WAIT, () -> ch.echoed.contains("ch:m0"), "the channel's first echo over TCP");
        return ch;
    }

    private static final class Channel {
        final Sinks.Many<Payload> out = Sinks.many().unicast().onBackpressureBuffer();
        final List<String> echoed = new CopyOnWriteArrayList<>();
        final AtomicBoolean completed = new AtomicBoolean();
        final AtomicReference<Throwable> failed = new AtomicReference<>();

        /** Ends the channel, after one more echo on the draining TCP connection, and waits until TCP closed. */
        void endAndAwaitTcpClosed(DuplexConnection tcpConnection) {
            out.tryEmitNext(DefaultPayload.create("m1"));
            LiveBufferWait.until(WAIT, () -> echoed.contains("ch:m1"), "the channel still echoing on the draining TCP connection");
            out.tryEmitComplete();
            LiveBufferWait.until(WAIT, completed::get, "the channel's completion");
            LiveBufferWait.until(WAIT, tcpConnection::isDisposed, "TCP closed after its last stream");
            assertThat(failed.get()).isNull();
        }
    }

    private void returnToRdma() {
        rdma.open.set(true);
        LiveBufferWait.until(WAIT, () -> counting.setups.size() == 2 && leases.connections() == 2,
                "the SETUP replayed on RDMA, with TCP still open for the channel");
        assertThat(leases.available()).as("nothing for the RDMA connection: the channel and TCP's unused grant hold the capacity").isZero();
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.dispose();
            client.onClose().onErrorResume(e -> Mono.empty()).block(WAIT);
        }
        if (server != null) {
            server.dispose();
            server.onClose().block(WAIT);
        }
        clientResources.dispose();
        serverResources.dispose();
        LiveBufferWait.awaitZero(clientResources, serverResources);
    }

    private String rr(String data) {
        return client.requestResponse(DefaultPayload.create(data)).map(CountingServer::data).block(WAIT);
    }

    private double returns() {
        return clientMeters.find("rdma.returns").counter() == null ? 0 : clientMeters.find("rdma.returns").counter().count();
    }

    /**
     * The server caps requests in flight at two. The TCP connection's lease of two is half used by a
     * channel that stays open across the return (so TCP drains instead of closing at once), and its
     * unused half holds the rest of the capacity, so the RDMA connection has no lease yet.
     */
    @Test
    void requestsAfterTheSetupReplayWaitForTheRdmaLeaseInsteadOfBeingRejected() {
        serve(2);
        connect();
        LiveBufferWait.until(WAIT, () -> leases.connections() == 1 && leases.available() == 0,
                "the TCP connection's lease of two requests");
        Channel channel = channel();
        returnToRdma();

        assertThat(rr("b")).as("a request counted under the TCP lease").isEqualTo("re:b");
        assertThat(counting.tcpRequests.get()).as("the channel and rr b went over TCP, whose lease they used").isEqualTo(2);
        assertThat(counting.rdmaRequests.get()).isZero();

        assertThat(rr("c")).as("a request that waited for the RDMA lease").isEqualTo("re:c");
        assertThat(counting.rdmaRequests.get()).as("it went over RDMA").isEqualTo(1);
        assertThat(returns()).isEqualTo(1.0);

        channel.endAndAwaitTcpClosed(tcp.connections.get(0));
        assertThat(rr("d")).as("once TCP closed, its grant no longer holds the capacity").isEqualTo("re:d");
        assertThat(counting.rdmaRequests.get()).isEqualTo(2);
        assertThat(serverMeters.counter("rdma.recovery.lease.rejected").count())
                .as("requests the server rejected for lack of a lease").isZero();
    }

    /**
     * The RDMA lease comes while the client still has a request of its TCP lease: it is kept until
     * that request is sent, inside RSocket's lease tracker, and then handed over from another thread
     * (handled within the tracker, RSocket would count that request down from the new lease's count
     * after handling it, leaving the RDMA lease's request unusable).
     */
    @Test
    void theRequestThatUsesTheTcpLeaseUpHandsTheKeptRdmaLeaseOver() {
        serve(3);
        connect();
        LiveBufferWait.until(WAIT, () -> leases.connections() == 1 && leases.available() == 0,
                "the TCP connection's lease of three requests");
        SwitchingDuplexConnection switching = (SwitchingDuplexConnection) source.get();
        Channel channel = channel();
        returnToRdma();

        assertThat(rr("b")).isEqualTo("re:b"); // its end frees a request: the RDMA connection's lease of one
        LiveBufferWait.until(WAIT, switching::leaseKept, "the RDMA lease kept while the client has a request of its TCP lease");
        assertThat(rr("c")).as("the last request of the TCP lease").isEqualTo("re:c");
        assertThat(counting.tcpRequests.get()).as("the channel, rr b and rr c went over TCP").isEqualTo(3);
        assertThat(returns()).isEqualTo(1.0);

        assertThat(rr("d")).as("the request of the RDMA lease").isEqualTo("re:d");
        assertThat(counting.rdmaRequests.get()).as("it went over RDMA").isEqualTo(1);
        channel.endAndAwaitTcpClosed(tcp.connections.get(0));
        assertThat(rr("e")).isEqualTo("re:e");
        assertThat(counting.rdmaRequests.get()).isEqualTo(2);
        assertThat(serverMeters.counter("rdma.recovery.lease.rejected").count())
                .as("requests the server rejected for lack of a lease").isZero();
    }
}
