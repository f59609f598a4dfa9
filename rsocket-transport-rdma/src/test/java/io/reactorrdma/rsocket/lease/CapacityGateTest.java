package io.reactorrdma.rsocket.lease;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
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
import io.rsocket.exceptions.RejectedException;
import io.rsocket.util.ByteBufPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link CapacityGate} without leases: a server whose receive path takes 1 ms a frame (about
 * 1,000 a second) stops reading fast enough, its receive window fills, and RSocket's requests
 * would queue in the client's transport without bound; gated, the flood waits instead.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CapacityGateTest {

    private static final Duration FLOOD = Duration.ofSeconds(8);
    private static final int CALLERS = 128;
    private static final int PAYLOAD_BYTES = 64;
    /** RdmaDuplexConnection's availability reaches 0 at 64 queued frames. */
    private static final int TRANSPORT_PRESSURE_LIMIT = 64;
    /**
     * The bound on the client's queued bytes (registered memory beyond its idle baseline): the
     * callers' payloads waiting at the gate, the frames the transport may queue before its
     * availability reaches 0, and those posted and not yet completed (the send queue), each under
     * 384 bytes (a frame is its payload plus a header buffer RSocket allocates at 256 bytes), plus
     * 64 KiB for receive buffers re-posted meanwhile. Ungated, the same flood queued 13.7 MB for
     * 50,000 fire-and-forgets.
     */
    private static final long QUEUED_BYTES_BOUND =
            (CALLERS + TRANSPORT_PRESSURE_LIMIT + EngineConfig.DEFAULT_SEND_QUEUE_DEPTH) * 384L + 64 * 1024;

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
    void aFloodOfFireAndForgetsToAServerThatReadsSlowlyWaitsAtTheGate() {
        List<Integer> received = new ArrayList<>(); // the server's receive path is one thread
        AtomicInteger receivedCount = new AtomicInteger();
        serverResources = RdmaResources.builder("slow-reader").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        clientResources = RdmaResources.builder("gated-client").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        server = RSocketServer.create((setup, sendingSocket) -> Mono.just(new RSocket() {
                    @Override
                    public Mono<Void> fireAndForget(Payload p) {
                        LockSupport.parkNanos(1_000_000); // a receive path that takes 1 ms a frame
                        synchronized (received) {
                            received.add(p.data().readInt());
                        }
                        receivedCount.incrementAndGet();
                        p.release();
                        return Mono.empty();
                    }
                }))
                .bind(RdmaServerTransport.create(RdmaServer.create().port(0).runOn(serverResources)))
                .block(Duration.ofSeconds(30));
        client = RSocketConnector.create()
                .interceptors(registry -> registry.forRequester(CapacityGate.create()))
                .connect(RdmaClientTransport.create(RdmaClient.create().port(server.address().getPort()).runOn(clientResources)))
                .block(Duration.ofSeconds(30));
        ByteBufAllocator alloc = clientResources.allocator().byteBufAllocator();
        long baseline = clientResources.allocator().local().statistics().liveBytes();

        FireAndForgetFlood flood = FireAndForgetFlood.start(client, alloc, 1_000_000, CALLERS, PAYLOAD_BYTES);
        this.flood = flood;
        long peakQueuedBytes = FireAndForgetFlood.peakOver(FLOOD,
                () -> clientResources.allocator().local().statistics().liveBytes() - baseline);
        flood.dispose();
        AtomicLong sent = flood.sent;
        Queue<Integer> sentSeqs = flood.sentSeqs;
        AtomicReference<Throwable> failure = flood.failure;
        long sentWhenCancelled = sent.get();
        System.out.printf("CapacityGateTest: %d sent in %d s; peak client queued bytes %d (bound %d)%n",
                sentWhenCancelled, FLOOD.toSeconds(), peakQueuedBytes, QUEUED_BYTES_BOUND);

        assertThat(failure.get()).as("no fire-and-forget failed").isNull();
        assertThat(sentWhenCancelled).as("the flood made progress at the server's pace").isGreaterThan(500);
        assertThat(sentWhenCancelled).as("and was held back").isLessThan(100_000);
        assertThat(peakQueuedBytes).as("the client's queued bytes stayed under the bound").isLessThanOrEqualTo(QUEUED_BYTES_BOUND);

        LiveBufferWait.until(Duration.ofSeconds(30), () -> receivedCount.get() >= sent.get());
        synchronized (received) {
            LiveBufferWait.assertInOrderWithoutLoss(received, sentSeqs);
        }
    }

    @Test
    void beyondMaxWaitingRequestsAreRejectedAndCancelledOnesReleaseTheirPayloads() {
        AtomicBoolean room = new AtomicBoolean(false);
        AtomicInteger started = new AtomicInteger();
        RSocket full = new RSocket() {
            @Override
            public Mono<Void> fireAndForget(Payload p) {
                started.incrementAndGet();
                p.release();
                return Mono.empty();
            }

            @Override
            public double availability() {
                return room.get() ? 1.0 : 0.0;
            }
        };
        RSocket gated = CapacityGate.builder().maxWaiting(2).pollInterval(Duration.ofMillis(1)).build().apply(full);
        Payload first = ByteBufPayload.create(Unpooled.copiedBuffer(new byte[] {1}));
        Payload second = ByteBufPayload.create(Unpooled.copiedBuffer(new byte[] {2}));
        Payload third = ByteBufPayload.create(Unpooled.copiedBuffer(new byte[] {3}));
        Disposable w1 = gated.fireAndForget(first).subscribe();
        AtomicBoolean secondDone = new AtomicBoolean();
        gated.fireAndForget(second).subscribe(null, e -> { }, () -> secondDone.set(true));
        AtomicReference<Throwable> error = new AtomicReference<>();
        gated.fireAndForget(third).subscribe(null, error::set);
        assertThat(error.get()).isInstanceOf(RejectedException.class).hasMessageContaining("2 requests already wait for room");
        assertThat(third.refCnt()).as("a rejected request's payload is released").isZero();
        assertThat(started.get()).as("nothing went while there was no room").isZero();

        w1.dispose();
        assertThat(first.refCnt()).as("cancelled while waiting: released, never sent").isZero();
        room.set(true);
        LiveBufferWait.until(Duration.ofSeconds(10), secondDone::get);
        assertThat(started.get()).as("the other waiting one went once there was room").isEqualTo(1);
        assertThat(second.refCnt()).isZero();
    }

    /**
     * A request that finds room goes on its caller's thread — which may be a transport's I/O
     * thread (a handler calling out) — with nothing locked: here, while the first request runs,
     * a second caller on another thread starts one and must not wait for the first. Before, the
     * gate ran the request inside its monitor, and the second caller waited for it.
     */
    @Test
    void aRequestThatGoesAtOnceRunsWithNothingLocked() throws Exception {
        AtomicReference<RSocket> gate = new AtomicReference<>();
        AtomicInteger started = new AtomicInteger();
        AtomicBoolean secondWaited = new AtomicBoolean(true);
        RSocket roomy = new RSocket() {
            @Override
            public Mono<Void> fireAndForget(Payload p) {
                p.release();
                if (started.incrementAndGet() == 1) {
                    Thread second = new Thread(() -> gate.get().fireAndForget(ByteBufPayload.create("second"))
                            .block(Duration.ofSeconds(60)));
                    second.start();
                    try {
                        second.join(TimeUnit.SECONDS.toMillis(30));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    secondWaited.set(second.isAlive());
                }
                return Mono.empty();
            }

            @Override
            public double availability() {
                return 1.0;
            }
        };
        gate.set(CapacityGate.builder().build().apply(roomy));
        gate.get().fireAndForget(ByteBufPayload.create("first")).block(Duration.ofSeconds(90));
        assertThat(secondWaited).as("the second caller waited for the first request to finish").isFalse();
        LiveBufferWait.until(Duration.ofSeconds(30), () -> started.get() == 2);
    }
}
