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
import io.rsocket.loadbalance.LoadbalanceRSocketClient;
import io.rsocket.loadbalance.LoadbalanceTarget;
import io.rsocket.util.DefaultPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two replicas with leases from receive capacity, one slow with a small receive window: RSocket's
 * weighted load balancer skips a replica whose lease is used up (its availability is 0) and no
 * request is rejected for lack of lease while the other replica has one.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaseLoadbalanceTest {

    private final SimpleMeterRegistry slowMeters = new SimpleMeterRegistry();
    private final SimpleMeterRegistry fastMeters = new SimpleMeterRegistry();
    private RdmaResources slowResources;
    private RdmaResources fastResources;
    private RdmaResources clientResources;
    private RdmaServerTransport.Bound slow;
    private RdmaServerTransport.Bound fast;
    private LoadbalanceRSocketClient client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.dispose();
        }
        if (slow != null) {
            slow.dispose();
        }
        if (fast != null) {
            fast.dispose();
        }
        for (RdmaResources r : new RdmaResources[] {clientResources, slowResources, fastResources}) {
            if (r != null) {
                r.dispose();
            }
        }
        if (clientResources != null) {
            LiveBufferWait.awaitZero(clientResources, slowResources, fastResources);
        }
    }

    private static RdmaServerTransport.Bound replica(ReceiveCapacityLeases leases, RdmaResources resources,
            Duration delay, AtomicInteger served) {
        return leases.applyTo(RSocketServer.create((setup, sendingSocket) -> Mono.just(new RSocket() {
                    @Override
                    public Mono<Payload> requestResponse(Payload p) {
                        String d = p.getDataUtf8();
                        p.release();
                        served.incrementAndGet();
                        Mono<Payload> answer = Mono.fromCallable(() -> DefaultPayload.create("re:" + d));
                        return delay.isZero() ? answer : Mono.delay(delay).then(answer);
                    }
                })))
                .bind(RdmaServerTransport.create(RdmaServer.create().port(0).runOn(resources)))
                .block(Duration.ofSeconds(30));
    }

    @Test
    void noRequestIsRejectedForLackOfLeaseWhileAnotherReplicaHasOne() {
        int slowWindow = 4;
        AtomicInteger servedBySlow = new AtomicInteger();
        AtomicInteger servedByFast = new AtomicInteger();
        ReceiveCapacityLeases slowLeases = ReceiveCapacityLeases.builder().meterRegistry(slowMeters).build();
        ReceiveCapacityLeases fastLeases = ReceiveCapacityLeases.builder().meterRegistry(fastMeters).build();
        slowResources = RdmaResources.builder("slow-replica").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF)
                .engine(EngineConfig.defaults().withSocketMessageWindow(slowWindow)).build();
        fastResources = RdmaResources.builder("fast-replica").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        clientResources = RdmaResources.builder("balancer").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        slow = replica(slowLeases, slowResources, Duration.ofMillis(50), servedBySlow);
        fast = replica(fastLeases, fastResources, Duration.ZERO, servedByFast);
        List<LoadbalanceTarget> targets = List.of(
                LoadbalanceTarget.from("slow",
                        RdmaClientTransport.create(RdmaClient.create().port(slow.address().getPort()).runOn(clientResources))),
                LoadbalanceTarget.from("fast",
                        RdmaClientTransport.create(RdmaClient.create().port(fast.address().getPort()).runOn(clientResources))));
        client = LoadbalanceRSocketClient.builder(Mono.just(targets))
                .connector(RSocketConnector.create().lease())
                .weightedLoadbalanceStrategy()
                .build();

        int requests = 3_000;
        AtomicInteger failed = new AtomicInteger();
        Long answered = Flux.range(0, requests)
                .flatMap(i -> client.requestResponse(Mono.fromSupplier(() -> DefaultPayload.create("r" + i)))
                        .map(p -> {
                            boolean ok = p.getDataUtf8().equals("re:r" + i);
                            p.release();
                            return ok;
                        })
                        .onErrorResume(e -> {
                            failed.incrementAndGet();
                            return Mono.just(false);
                        }), 16)
                .filter(ok -> ok)
                .count()
                .block(Duration.ofSeconds(50));

        System.out.printf("LeaseLoadbalanceTest: slow replica served %d, fast %d; slow lease ran out %.0f times%n",
                servedBySlow.get(), servedByFast.get(), slowMeters.counter("rdma.recovery.lease.exhausted").count());
        assertThat(failed.get()).as("requests that failed (e.g. MissingLeaseException)").isZero();
        assertThat(answered).isEqualTo(requests);
        assertThat(slowMeters.counter("rdma.recovery.lease.exhausted").count())
                .as("the slow replica's lease ran out: the balancer had a replica without lease to skip").isPositive();
        assertThat(slowMeters.counter("rdma.recovery.lease.rejected").count()).isZero();
        assertThat(fastMeters.counter("rdma.recovery.lease.rejected").count()).isZero();
        assertThat(servedBySlow.get()).as("the slow replica got fewer requests than the fast one").isLessThan(servedByFast.get());
        assertThat(servedBySlow.get() + servedByFast.get()).isEqualTo(requests);
    }
}
