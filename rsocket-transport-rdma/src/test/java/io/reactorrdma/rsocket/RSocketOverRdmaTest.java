package io.reactorrdma.rsocket;

import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.RdmaResourcesTestAccess;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.util.DefaultPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RSocket's interaction models over the RDMA transport (loopback fabric), unchanged handlers.
 * RSocket's own conformance suite runs in the {@code Rdma*TransportTest} classes.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RSocketOverRdmaTest {

    private RdmaResources serverResources;
    private RdmaResources clientResources;
    private RdmaServerTransport.Bound server;
    private RSocket client;
    private final Sinks.Many<String> fireAndForgets = Sinks.many().replay().all();
    private final Sinks.Many<String> metadataPushes = Sinks.many().replay().all();

    @BeforeEach
    void start() {
        serverResources = RdmaResources.builder("rsocket-server").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        clientResources = RdmaResources.builder("rsocket-client").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        server = RSocketServer.create((setup, sendingSocket) -> Mono.just(new RSocket() {
                    @Override
                    public Mono<Payload> requestResponse(Payload p) {
                        String d = p.getDataUtf8();
                        p.release();
                        return Mono.just(DefaultPayload.create("re:" + d));
                    }

                    @Override
                    public Flux<Payload> requestStream(Payload p) {
                        int n = Integer.parseInt(p.getDataUtf8());
                        p.release();
                        return Flux.range(0, n).map(i -> DefaultPayload.create("item " + i));
                    }

                    @Override
                    public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
                        return Flux.from(payloads).map(p -> {
                            String d = p.getDataUtf8();
                            p.release();
                            return DefaultPayload.create("ch:" + d);
                        });
                    }

                    @Override
                    public Mono<Void> fireAndForget(Payload p) {
                        fireAndForgets.tryEmitNext(p.getDataUtf8());
                        p.release();
                        return Mono.empty();
                    }

                    @Override
                    public Mono<Void> metadataPush(Payload p) {
                        metadataPushes.tryEmitNext(p.getMetadataUtf8());
                        p.release();
                        return Mono.empty();
                    }
                }))
                .bind(RdmaServerTransport.create(RdmaServer.create().port(0).runOn(serverResources)))
                .block(Duration.ofSeconds(30));
        client = RSocketConnector.create()
                .connect(RdmaClientTransport.create(RdmaClient.create().port(server.address().getPort()).runOn(clientResources)))
                .block(Duration.ofSeconds(30));
    }

    @AfterEach
    void stop() {
        client.dispose();
        client.onClose().block(Duration.ofSeconds(30));
        server.dispose();
        clientResources.dispose();
        serverResources.dispose();
        // RSocket releases what it holds (the setup frame, queued frames) as its connections close,
        // which happens on their threads just after: wait for it, boundedly.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while ((clientResources.allocator().liveBuffers() != 0 || serverResources.allocator().liveBuffers() != 0)
                && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            Thread.yield();
        }
        assertThat(clientResources.allocator().liveBuffers()).as("client live buffers").isZero();
        assertThat(serverResources.allocator().liveBuffers()).as("server live buffers").isZero();
    }

    @Test
    void requestResponse() {
        StepVerifier.create(client.requestResponse(DefaultPayload.create("hello")).map(p -> {
                    String d = p.getDataUtf8();
                    p.release();
                    return d;
                }))
                .expectNext("re:hello")
                .verifyComplete();
    }

    @Test
    void requestStreamWithLargeAndSmallDemand() {
        StepVerifier.create(client.requestStream(DefaultPayload.create("10000")).doOnNext(Payload::release).count())
                .expectNext(10_000L)
                .verifyComplete();
        StepVerifier.create(client.requestStream(DefaultPayload.create("5")).doOnNext(Payload::release), 2)
                .expectNextCount(2)
                .thenRequest(3)
                .expectNextCount(3)
                .verifyComplete();
    }

    @Test
    void manyConcurrentChannels() {
        var scheduler = Schedulers.fromExecutorService(Executors.newFixedThreadPool(12));
        try {
            Long channels = Flux.range(0, 200)
                    .flatMap(v -> Mono.fromCallable(() -> client.requestChannel(Flux.range(0, 256).map(i -> DefaultPayload.create("x" + i)))
                            .doOnNext(Payload::release).limitRate(8).count().block(Duration.ofSeconds(60))).subscribeOn(scheduler), 12)
                    .filter(n -> n == 256)
                    .count()
                    .block(Duration.ofSeconds(100));
            assertThat(channels).isEqualTo(200);
        } finally {
            scheduler.dispose();
        }
    }

    @Test
    void largePayloadsGoByRendezvous() {
        String big = "y".repeat(600_000);
        StepVerifier.create(client.requestResponse(DefaultPayload.create(big)).map(p -> {
                    int n = p.getDataUtf8().length();
                    p.release();
                    return n;
                }))
                .expectNext(600_003)
                .verifyComplete();
        assertThat(RdmaResourcesTestAccess.domains(serverResources)[0].metrics().rendezvousRoundTrips()).isPositive();
    }

    @Test
    void fireAndForgetAndMetadataPush() {
        Flux.range(0, 10).flatMap(i -> client.fireAndForget(DefaultPayload.create("f" + i))).blockLast(Duration.ofSeconds(30));
        client.metadataPush(DefaultPayload.create("", "meta")).block(Duration.ofSeconds(30));
        StepVerifier.create(fireAndForgets.asFlux().take(10).count()).expectNext(10L).verifyComplete();
        StepVerifier.create(metadataPushes.asFlux().take(1)).expectNext("meta").verifyComplete();
    }
}
