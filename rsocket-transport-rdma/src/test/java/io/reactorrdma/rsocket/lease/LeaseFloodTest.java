package io.reactorrdma.rsocket.lease;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client floods a slow server (1,000 fire-and-forgets a second) with 1,000,000 fire-and-forgets
 * as fast as it can: with leases from receive capacity the flood waits at the client instead of
 * queueing. The literal run would take 1,000 s; this one floods for {@link #FLOOD} (the ratio is the
 * point), then cancels the rest.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaseFloodTest {

    private static final Duration FLOOD = Duration.ofSeconds(10);
    private static final int OFFERED = 1_000_000;
    private static final int PAYLOAD_BYTES = 64;
    /** The caller's concurrency: fire-and-forgets waiting for a lease (RSocket queues up to 256 per connection). */
    private static final int CALLERS = 128;
    /**
     * The bound on the client's queued bytes (registered memory beyond its idle baseline): the
     * payloads of the callers waiting for a lease plus the frames one lease lets through (the
     * server's 32-message receive window), each under 384 bytes (a frame is its payload plus a
     * header buffer RSocket allocates at 256 bytes), plus 64 KiB for the receive buffers the
     * engine re-posts meanwhile. Without leases the flood goes out at wire speed and queues at
     * the server instead (all 1,000,000 out in 10 s, 872,606 waiting there).
     */
    private static final long QUEUED_BYTES_BOUND = (CALLERS + EngineConfig.DEFAULT_SOCKET_MESSAGE_WINDOW) * 384L + 64 * 1024;

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final Scheduler slowWorker = Schedulers.newSingle("slow-server");
    private RdmaResources serverResources;
    private RdmaResources clientResources;
    private RdmaServerTransport.Bound server;
    private RSocket client;
    private Disposable flood;

    @AfterEach
    void stop() {
        if (flood != null) {
            flood.dispose();
        }
        if (client != null) {
            client.dispose();
            client.onClose().onErrorResume(e -> Mono.empty()).block(Duration.ofSeconds(30));
        }
        if (server != null) {
            server.dispose();
        }
        slowWorker.dispose();
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

    @Test
    void aMillionFireAndForgetsToAServerThatProcessesAThousandASecondWaitInsteadOfQueueing() {
        List<Integer> processed = new ArrayList<>(); // written on the slow worker only
        AtomicInteger processedCount = new AtomicInteger();
        AtomicInteger queuedAtServer = new AtomicInteger();
        AtomicInteger peakQueuedAtServer = new AtomicInteger();
        ReceiveCapacityLeases leases = ReceiveCapacityLeases.builder().meterRegistry(meters).build();
        serverResources = RdmaResources.builder("flood-server").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        clientResources = RdmaResources.builder("flood-client").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        server = leases.applyTo(RSocketServer.create((setup, sendingSocket) -> Mono.just(new RSocket() {
                    @Override
                    public Mono<Void> fireAndForget(Payload p) {
                        int seq = p.data().readInt();
                        p.release();
                        peakQueuedAtServer.accumulateAndGet(queuedAtServer.incrementAndGet(), Math::max);
                        // the work: 1 ms each, one at a time, in arrival order; the request ends when it is done
                        return Mono.<Void>fromRunnable(() -> {
                            LockSupport.parkNanos(1_000_000);
                            processed.add(seq);
                            processedCount.incrementAndGet();
                            queuedAtServer.decrementAndGet();
                        }).subscribeOn(slowWorker);
                    }
                })))
                .bind(RdmaServerTransport.create(RdmaServer.create().port(0).runOn(serverResources)))
                .block(Duration.ofSeconds(30));
        client = RSocketConnector.create().lease()
                .connect(RdmaClientTransport.create(RdmaClient.create().port(server.address().getPort()).runOn(clientResources)))
                .block(Duration.ofSeconds(30));
        ByteBufAllocator alloc = clientResources.allocator().byteBufAllocator();
        LiveBufferWait.until(Duration.ofSeconds(10), () -> leases.connections() == 1);
        long baseline = clientResources.allocator().local().statistics().liveBytes();

        FireAndForgetFlood flood = FireAndForgetFlood.start(client, alloc, OFFERED, CALLERS, PAYLOAD_BYTES);
        this.flood = flood;
        long peakQueuedBytes = FireAndForgetFlood.peakOver(FLOOD,
                () -> clientResources.allocator().local().statistics().liveBytes() - baseline);
        flood.dispose();
        AtomicLong sent = flood.sent;
        Queue<Integer> sentSeqs = flood.sentSeqs;
        AtomicReference<Throwable> failure = flood.failure;
        long sentWhenCancelled = sent.get();
        System.out.printf(
                "LeaseFloodTest: %d of %d offered went out in %d s; peak client queued bytes %d (bound %d); peak server queue %d%n",
                sentWhenCancelled, OFFERED, FLOOD.toSeconds(), peakQueuedBytes, QUEUED_BYTES_BOUND, peakQueuedAtServer.get());

        assertThat(failure.get()).as("no fire-and-forget failed (none rejected for lack of lease)").isNull();
        assertThat(sentWhenCancelled).as("the flood made progress at the server's pace").isGreaterThan(1_000);
        assertThat(sentWhenCancelled).as("and was held back: far fewer than offered went out").isLessThan(OFFERED / 10);
        assertThat(peakQueuedBytes).as("the client's queued bytes stayed under the bound").isLessThanOrEqualTo(QUEUED_BYTES_BOUND);
        assertThat(peakQueuedAtServer.get()).as("the server's queue never held more than its receive window")
                .isLessThanOrEqualTo(EngineConfig.DEFAULT_SOCKET_MESSAGE_WINDOW);

        // what went out is all processed, in order, without loss; then nothing more comes
        LiveBufferWait.until(Duration.ofSeconds(20), () -> processedCount.get() >= sent.get());
        long sentTotal = sent.get();
        assertThat(processedCount.get()).isEqualTo(sentTotal);
        List<Integer> arrived = Mono.fromCallable(() -> new ArrayList<>(processed)).subscribeOn(slowWorker).block(Duration.ofSeconds(10));
        LiveBufferWait.assertInOrderWithoutLoss(arrived, sentSeqs);
        assertThat(meters.counter("rdma.recovery.lease.rejected").count()).isZero();
        // cancelled payloads were released: the client's memory is back at its idle baseline
        LiveBufferWait.until(Duration.ofSeconds(10),
                () -> clientResources.allocator().local().statistics().liveBytes() <= baseline + 64 * 1024);
    }
}
