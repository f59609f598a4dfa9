package io.reactorrdma.rsocket.lease;

import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.reactorrdma.rsocket.RdmaServerTransport;
import io.reactorrdma.rsocket.testing.LiveBufferWait;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.lease.Lease;
import io.rsocket.util.ByteBufPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.scheduler.VirtualTimeScheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A request waiting at the {@link CapacityGate} is woken by what gives it room — a lease arriving,
 * the RDMA queue draining — not by re-checking on a timer. The gate runs on a timer in virtual time
 * that counts its delayed tasks (re-checks); one virtual second passes while the request waits.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CapacityGateWakeTest {

    private final VirtualTimeScheduler virtual = VirtualTimeScheduler.create();
    private final AtomicInteger delayedTasks = new AtomicInteger();
    /** Immediate tasks run on a real thread; delayed ones (re-checks) in virtual time, counted. */
    private final Scheduler timer = new Scheduler() {
        @Override
        public Disposable schedule(Runnable task) {
            return Schedulers.boundedElastic().schedule(task);
        }

        @Override
        public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
            return virtual.schedule(() -> {
                delayedTasks.incrementAndGet();
                task.run();
            }, delay, unit);
        }

        @Override
        public Worker createWorker() {
            return Schedulers.boundedElastic().createWorker();
        }
    };

    private RdmaResources serverResources;
    private RdmaResources clientResources;
    private RdmaServerTransport.Bound server;
    private RSocket client;
    private final CountDownLatch serverReads = new CountDownLatch(1);

    @AfterEach
    void stop() {
        serverReads.countDown();
        if (client != null) {
            client.dispose();
            client.onClose().onErrorResume(e -> Mono.empty()).block(Duration.ofSeconds(30));
        }
        if (server != null) {
            server.dispose();
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
        virtual.dispose();
    }

    private void resources() {
        serverResources = RdmaResources.builder("wake-server").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        clientResources = RdmaResources.builder("wake-client").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
    }

    private RdmaClientTransport clientTransport() {
        return RdmaClientTransport.create(RdmaClient.create().port(server.address().getPort()).runOn(clientResources));
    }

    @Test
    void aRequestWaitingForALeaseIsWokenByTheLeaseNotByPolling() throws Exception {
        resources();
        Sinks.Many<Lease> leases = Sinks.many().replay().all();
        AtomicInteger received = new AtomicInteger();
        server = RSocketServer.create((setup, sendingSocket) -> Mono.just(new RSocket() {
                    @Override
                    public Mono<Void> fireAndForget(Payload p) {
                        p.release();
                        received.incrementAndGet();
                        return Mono.empty();
                    }
                }))
                .lease(spec -> spec.sender(leases::asFlux))
                .bind(RdmaServerTransport.create(RdmaServer.create().port(0).runOn(serverResources)))
                .block(Duration.ofSeconds(30));
        client = RSocketConnector.create().lease().connect(clientTransport()).block(Duration.ofSeconds(30));
        RSocket gated = new CapacityGatedRSocket(client, timer, TimeUnit.MILLISECONDS.toNanos(1), 256);

        CompletableFuture<Void> sent = gated.fireAndForget(ByteBufPayload.create("waits for a lease")).toFuture();
        virtual.advanceTimeBy(Duration.ofSeconds(1));
        assertThat(sent).as("no lease yet").isNotDone();
        assertThat(delayedTasks.get()).as("re-checks run while the request waited for a lease (whose arrival signals)").isZero();

        leases.tryEmitNext(Lease.create(Duration.ofMinutes(10), 10));
        sent.get(30, TimeUnit.SECONDS);
        LiveBufferWait.until(Duration.ofSeconds(30), () -> received.get() == 1);
    }

    @Test
    void requestsWaitingForTheRdmaQueueAreWokenAsItDrainsNotByPolling() throws Exception {
        resources();
        AtomicInteger received = new AtomicInteger();
        server = RSocketServer.create((setup, sendingSocket) -> Mono.just(new RSocket() {
                    @Override
                    public Mono<Void> fireAndForget(Payload p) {
                        p.release();
                        try {
                            serverReads.await(60, TimeUnit.SECONDS); // the server's receive path stops: the client's queue fills
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        received.incrementAndGet();
                        return Mono.empty();
                    }
                }))
                .bind(RdmaServerTransport.create(RdmaServer.create().port(0).runOn(serverResources)))
                .block(Duration.ofSeconds(30));
        client = RSocketConnector.create().connect(clientTransport()).block(Duration.ofSeconds(30));
        RSocket gated = new CapacityGatedRSocket(client, timer, TimeUnit.MILLISECONDS.toNanos(1), 256);

        List<CompletableFuture<Void>> sent = new ArrayList<>();
        int n = 200; // beyond the server's socket window (32) and the transport's pressure limit (64 queued)
        for (int i = 0; i < n; i++) {
            sent.add(gated.fireAndForget(ByteBufPayload.create("f" + i)).toFuture());
        }
        LiveBufferWait.until(Duration.ofSeconds(30), () -> client.availability() == 0.0);
        assertThat(sent.get(n - 1)).as("the last one waits at the gate").isNotDone();
        virtual.advanceTimeBy(Duration.ofSeconds(1));
        assertThat(delayedTasks.get()).as("re-checks run while requests waited for the RDMA queue (whose draining signals)").isZero();

        serverReads.countDown();
        CompletableFuture.allOf(sent.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
        LiveBufferWait.until(Duration.ofSeconds(30), () -> received.get() == n);
    }
}
