package io.reactorrdma.rsocket.shard;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.reactorrdma.rsocket.RdmaServerTransport;
import io.rsocket.DuplexConnection;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketServer;
import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.exceptions.RejectedException;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.ClientTransport;
import io.rsocket.util.DefaultPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shard client over the in-JVM loopback fabric: replicas are RSocket servers in this JVM
 * whose behaviour each test chooses (slow, rejecting, failing, hanging the first copy).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShardClientTest {

    private RdmaResources serverResources;
    private RdmaResources clientResources;
    private final List<RdmaServerTransport.Bound> servers = new ArrayList<>();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private ShardClient client;

    @BeforeEach
    void resources() {
        serverResources = RdmaResources.builder("shard-test-server").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        clientResources = RdmaResources.builder("shard-test-client").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.dispose();
            client.onClose().block(Duration.ofSeconds(30));
        }
        servers.forEach(RdmaServerTransport.Bound::dispose);
        clientResources.dispose();
        serverResources.dispose();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while ((clientResources.allocator().liveBuffers() != 0 || serverResources.allocator().liveBuffers() != 0)
                && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            Thread.yield();
        }
        assertThat(clientResources.allocator().liveBuffers()).as("client live buffers").isZero();
        assertThat(serverResources.allocator().liveBuffers()).as("server live buffers").isZero();
    }

    /** Starts a replica answering with {@code handler(data)}; returns its address. */
    private InetSocketAddress replica(Function<String, Mono<String>> handler) {
        return replicaOwningPayloads(p -> {
            String data = p.getDataUtf8();
            p.release();
            return handler.apply(data);
        });
    }

    /** Starts a replica whose handler takes each request (and must release it); returns its address. */
    private InetSocketAddress replicaOwningPayloads(Function<Payload, Mono<String>> handler) {
        RdmaServerTransport.Bound bound = RSocketServer.create((setup, sending) -> Mono.just(new RSocket() {
                    @Override
                    public Mono<Payload> requestResponse(Payload p) {
                        return handler.apply(p).map(DefaultPayload::create);
                    }
                }))
                .payloadDecoder(PayloadDecoder.ZERO_COPY)
                .bind(RdmaServerTransport.create(RdmaServer.create().port(0).runOn(serverResources)))
                .block(Duration.ofSeconds(30));
        servers.add(bound);
        return new InetSocketAddress("127.0.0.1", bound.address().getPort());
    }

    private ShardClient.Builder shard(List<InetSocketAddress> replicas) {
        return ShardClient.builder().replicas(replicas)
                .transport(a -> RdmaClientTransport.create(RdmaClient.create().host(a.getHostString()).port(a.getPort())
                        .runOn(clientResources)))
                .connector(c -> c.payloadDecoder(PayloadDecoder.ZERO_COPY))
                .meterRegistry(meters);
    }

    private static String data(Payload p) {
        try {
            return p.getDataUtf8();
        } finally {
            p.release();
        }
    }

    private void awaitLive(int n) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (client.liveReplicas().size() < n && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(client.liveReplicas()).hasSize(n);
    }

    private double count(String name) {
        return meters.find(name).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    @Test
    void aSlowedReplicaReceivesFarLessThanItsFairShare() {
        InetSocketAddress slow = replica(d -> Mono.just("re:" + d).delayElement(Duration.ofMillis(30)));
        List<InetSocketAddress> all = List.of(slow, replica(d -> Mono.just("re:" + d)), replica(d -> Mono.just("re:" + d)));
        client = shard(all).hedging(false).build();
        awaitLive(3);
        String slowKey = "127.0.0.1:" + slow.getPort();
        // warm-up: JIT and first connections make every replica look slow for a moment
        Flux.range(0, 500).flatMap(i -> client.requestResponse(Mono.fromCallable(() -> DefaultPayload.create("w" + i)))
                .map(ShardClientTest::data), 8).blockLast(Duration.ofSeconds(30));
        long slowBefore = client.requestsSent().get(slowKey);
        int calls = 4000;
        Long ok = Flux.range(0, calls)
                .flatMap(i -> client.requestResponse(Mono.fromCallable(() -> DefaultPayload.create("k" + i))).map(ShardClientTest::data), 8)
                .filter(s -> s.startsWith("re:k")).count().block(Duration.ofSeconds(50));
        assertThat(ok).isEqualTo(calls);
        Map<String, Long> sent = client.requestsSent();
        long toSlow = sent.get(slowKey) - slowBefore;
        System.out.println("requests sent per replica (500 of them warm-up), the slowed one " + slowKey + ": " + sent);
        // the fair share is 1/3; latency and pending steer the weighted strategy away from the slow one
        assertThat((double) toSlow / calls).as("share of the slowed replica, sent " + sent).isLessThan(1.0 / 9);
    }

    /** What the saturated replica's connection reports: a queue pair with 1 % of its room left. */
    private static final double AVAILABILITY = 0.01;

    @Test
    void aReplicaWhoseConnectionReportsLittleCapacityReceivesFewerRequests() {
        // as RdmaDuplexConnection.availability() does when frames queue behind a saturated queue pair
        InetSocketAddress saturated = replica(d -> Mono.just("re:" + d));
        List<InetSocketAddress> all = List.of(saturated, replica(d -> Mono.just("re:" + d)), replica(d -> Mono.just("re:" + d)));
        client = shard(all).hedging(false)
                .transport(a -> {
                    ClientTransport rdma = RdmaClientTransport.create(RdmaClient.create().host(a.getHostString()).port(a.getPort())
                            .runOn(clientResources));
                    return a.equals(saturated) ? () -> rdma.connect().map(c -> new ReportedAvailability(c, AVAILABILITY)) : rdma;
                })
                .build();
        awaitLive(3);
        String key = "127.0.0.1:" + saturated.getPort();
        Flux.range(0, 500).flatMap(i -> client.requestResponse(Mono.fromCallable(() -> DefaultPayload.create("w" + i)))
                .map(ShardClientTest::data), 2).blockLast(Duration.ofSeconds(30));
        long before = client.requestsSent().get(key);
        int calls = 3000;
        Flux.range(0, calls).flatMap(i -> client.requestResponse(Mono.fromCallable(() -> DefaultPayload.create("k" + i)))
                .map(ShardClientTest::data), 2).blockLast(Duration.ofSeconds(50));
        Map<String, Long> sent = client.requestsSent();
        System.out.println("requests sent per replica (500 of them warm-up), " + key + " at availability " + AVAILABILITY + ": " + sent);
        // The fair share is 1/3. The weighted strategy compares two replicas at a time, availability against predicted
        // latency and pending requests, so when the others' latency spikes on a busy host the low one still wins some
        // pairs: at availability 0.05 fresh-clone builds gave it 0.1 % to 12 % of the calls, about 20 % once and 25.5 %
        // once (builds whose other modules' tests had just run). At 0.01 another replica must look 100 times slower,
        // not 20, before the low one wins a pair. Well under the fair share is what it promises: at most three quarters.
        double share = (double) (sent.get(key) - before) / calls;
        System.out.println("share of the replica at availability " + AVAILABILITY + ": " + share);
        assertThat(share).as("share of the replica with little capacity, sent " + sent).isLessThan(1.0 / 4);
    }

    /** A connection that reports a fixed availability and otherwise is the one it wraps. */
    private record ReportedAvailability(DuplexConnection delegate, double availability) implements DuplexConnection {
        @Override
        public void sendFrame(int streamId, io.netty.buffer.ByteBuf frame) {
            delegate.sendFrame(streamId, frame);
        }

        @Override
        public void sendErrorAndClose(io.rsocket.RSocketErrorException e) {
            delegate.sendErrorAndClose(e);
        }

        @Override
        public Flux<io.netty.buffer.ByteBuf> receive() {
            return delegate.receive();
        }

        @Override
        public io.netty.buffer.ByteBufAllocator alloc() {
            return delegate.alloc();
        }

        @Override
        public java.net.SocketAddress remoteAddress() {
            return delegate.remoteAddress();
        }

        @Override
        public Mono<Void> onClose() {
            return delegate.onClose();
        }

        @Override
        public void dispose() {
            delegate.dispose();
        }

        @Override
        public boolean isDisposed() {
            return delegate.isDisposed();
        }
    }

    @Test
    void idempotentCallsAreRetriedOnAnotherReplicaWhenOneRejects() {
        Set<String> answeredBy = ConcurrentHashMap.newKeySet();
        InetSocketAddress rejecting = replica(d -> Mono.error(new RejectedException("overloaded")));
        replica(d -> Mono.fromCallable(() -> {
            answeredBy.add("good");
            return "re:" + d;
        }));
        client = shard(List.of(rejecting, new InetSocketAddress("127.0.0.1", servers.get(1).address().getPort()))).build();
        awaitLive(2);
        for (int i = 0; i < 50; i++) {
            String answer = client.requestResponse(Mono.just(DefaultPayload.create("i" + i))).map(ShardClientTest::data)
                    .contextWrite(CallOptions.idempotent()).block(Duration.ofSeconds(30));
            assertThat(answer).isEqualTo("re:i" + i);
        }
        assertThat(count("rdma.recovery.retries")).as("retries").isPositive();
        assertThat(client.requestsSent().get("127.0.0.1:" + rejecting.getPort())).as("the rejecting replica was tried").isPositive();

    }

    @Test
    void nonIdempotentCallsFailWithTheCauseAndIdempotentOnesStopAtMaxAttempts() {
        client = shard(List.of(replica(d -> Mono.error(new RejectedException("overloaded"))),
                replica(d -> Mono.error(new RejectedException("overloaded")))))
                .idempotentByDefault(true).build();
        awaitLive(2);
        Throwable once = client.requestResponse(Mono.just(DefaultPayload.create("n"))).map(ShardClientTest::data)
                .contextWrite(CallOptions.notIdempotent())
                .flatMap(s -> Mono.<Throwable>empty()).onErrorResume(Mono::just).block(Duration.ofSeconds(30));
        assertThat(once).isInstanceOf(RejectedException.class).hasMessageContaining("overloaded");
        assertThat(count("rdma.recovery.retries")).isZero();
        assertThat(client.requestsSent().values().stream().mapToLong(Long::longValue).sum()).as("sent once").isEqualTo(1);

        Throwable thrice = client.requestResponse(Mono.just(DefaultPayload.create("i"))).map(ShardClientTest::data)
                .flatMap(s -> Mono.<Throwable>empty()).onErrorResume(Mono::just).block(Duration.ofSeconds(30));
        assertThat(thrice).isInstanceOf(RejectedException.class);
        assertThat(count("rdma.recovery.retries")).as("retries of the idempotent call").isEqualTo(ShardClient.DEFAULT_MAX_ATTEMPTS - 1);
        assertThat(client.requestsSent().values()).as("retries went to the other replica first").allMatch(n -> n >= 1);
    }

    @Test
    void applicationErrorsAreNotRetried() {
        List<InetSocketAddress> all = List.of(replica(d -> Mono.error(new IllegalArgumentException("no key " + d))),
                replica(d -> Mono.error(new IllegalArgumentException("no key " + d))));
        client = shard(all).idempotentByDefault(true).build();
        awaitLive(2);
        Throwable error = client.requestResponse(Mono.just(DefaultPayload.create("x"))).map(ShardClientTest::data)
                .flatMap(s -> Mono.<Throwable>empty()).onErrorResume(Mono::just).block(Duration.ofSeconds(30));
        assertThat(error).isInstanceOf(ApplicationErrorException.class).hasMessageContaining("no key x");
        assertThat(count("rdma.recovery.retries")).isZero();
        assertThat(client.requestsSent().values().stream().mapToLong(Long::longValue).sum()).as("sent once").isEqualTo(1);
    }

    @Test
    void aHedgeWinsAndItsCancelReachesTheOtherReplica() {
        // the first copy of every request hangs, wherever it lands, holding its request (registered
        // memory) until a CANCEL releases it; the second copy is answered at once
        Map<String, Boolean> seen = new ConcurrentHashMap<>();
        AtomicInteger cancelled = new AtomicInteger();
        Queue<Payload> held = new ConcurrentLinkedQueue<>();
        Function<Payload, Mono<String>> firstHangs = p -> {
            String d = p.getDataUtf8();
            if (seen.putIfAbsent(d, Boolean.TRUE) == null) {
                held.add(p);
                return Mono.<String>never().doOnCancel(() -> {
                    cancelled.incrementAndGet();
                    p.release();
                });
            }
            p.release();
            return Mono.just("re:" + d);
        };
        client = shard(List.of(replicaOwningPayloads(firstHangs), replicaOwningPayloads(firstHangs)))
                .idempotentByDefault(true)
                .timeout(Duration.ofSeconds(20)) // no retry: the hedge must answer
                .hedgePolicy(0.95, 1.0)
                .hedgeDelay(Duration.ofMillis(1), Duration.ofMillis(20), 1000)
                .build();
        awaitLive(2);
        int calls = 20;
        for (int i = 0; i < calls; i++) {
            assertThat(client.requestResponse(Mono.just(DefaultPayload.create("h" + i))).map(ShardClientTest::data)
                    .block(Duration.ofSeconds(30))).isEqualTo("re:h" + i);
        }
        assertThat(count("rdma.recovery.hedges")).isEqualTo(calls);
        assertThat(count("rdma.recovery.hedges.won")).isEqualTo(calls);
        assertThat(count("rdma.recovery.retries")).isZero();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (cancelled.get() < calls && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(cancelled.get()).as("CANCELs the replicas saw for the losing copies").isEqualTo(calls);
        while (held.stream().anyMatch(p -> p.refCnt() > 0) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(held).as("requests the replicas held until the CANCEL").hasSize(calls)
                .allSatisfy(p -> assertThat(p.refCnt()).as("released on CANCEL").isZero());
    }

    @Test
    void hedgesStayWithinTheCap() {
        client = shard(List.of(replica(d -> Mono.just("re:" + d).delayElement(Duration.ofMillis(5))),
                replica(d -> Mono.just("re:" + d).delayElement(Duration.ofMillis(5)))))
                .idempotentByDefault(true)
                .hedgeDelay(Duration.ofMillis(1), Duration.ofMillis(1), 1_000_000) // always "slow": every call wants a hedge
                .build();
        awaitLive(2);
        int calls = 400;
        Flux.range(0, calls).flatMap(i -> client.requestResponse(Mono.fromCallable(() -> DefaultPayload.create("c" + i)))
                .map(ShardClientTest::data), 4).blockLast(Duration.ofSeconds(50));
        assertThat(count("rdma.recovery.hedges")).as("hedges at the default 5 % cap").isPositive().isLessThanOrEqualTo(calls * 0.05);
    }

    @Test
    void badSettingsAreRejectedWithAClearMessage() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ShardClient.builder().build())
                .hasMessageContaining("replicas(addresses)");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ShardClient.builder().replicas(List.of()))
                .hasMessageContaining("at least one replica");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ShardClient.builder().hedgePolicy(0.95, 2))
                .hasMessageContaining("hedge fraction");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ShardClient.builder()
                .keepAlive(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .hasMessageContaining("must exceed");
    }

    /**
     * The primary answers exactly while the hedge timer's thread is about to retain the request for
     * the hedge (the test's payload holds that thread in its second retain until the call released
     * it): no hedge goes out, so none is counted, and no replica keeps a request in flight.
     */
    @Test
    void aHedgeRacingThePrimarysAnswerLeavesNoPhantomRequestInFlight() throws Exception {
        java.util.concurrent.CompletableFuture<Void> primaryMayAnswer = new java.util.concurrent.CompletableFuture<>();
        AtomicInteger arrived = new AtomicInteger();
        Function<String, Mono<String>> firstWaits = d -> arrived.incrementAndGet() == 1
                ? Mono.fromFuture(primaryMayAnswer).thenReturn("re:" + d) : Mono.just("re:" + d);
        client = shard(List.of(replica(firstWaits), replica(firstWaits)))
                .idempotentByDefault(true)
                .timeout(Duration.ofSeconds(20))
                .hedgePolicy(0.95, 1.0)
                .hedgeDelay(Duration.ofMillis(1), Duration.ofMillis(1), 1000)
                .build();
        awaitLive(2);
        java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(1);
        AtomicInteger retains = new AtomicInteger();
        Payload request = new HookedPayload(io.rsocket.util.ByteBufPayload.create("h"), () -> {
            if (retains.incrementAndGet() == 2) { // the hedge's retain, on the hedge timer's thread
                primaryMayAnswer.complete(null);
                try {
                    assertThat(released.await(20, TimeUnit.SECONDS)).as("the call released its request").isTrue();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, released::countDown);

        assertThat(client.requestResponse(Mono.just(request)).map(ShardClientTest::data).block(Duration.ofSeconds(30))).isEqualTo("re:h");
        assertThat(retains.get()).as("the hedge timer reached the retain").isEqualTo(2);
        assertThat(count("rdma.recovery.hedges")).as("a hedge that never went out is not counted").isZero();
        assertThat(client.requestsSent().values().stream().mapToLong(Long::longValue).sum()).as("only the primary was sent").isEqualTo(1);
        // The primary's copy ends (its in-flight count drops) on the client's I/O thread just after it handed its
        // answer over; closing the client's connections runs on that same thread after it, so once the client
        // closed, every copy that went out has ended: what is left is a phantom.
        client.dispose();
        client.onClose().block(Duration.ofSeconds(30));
        assertThat(client.requestsInFlight().values()).as("requests in flight per replica, " + client.requestsInFlight())
                .containsOnly(0);
    }

    /**
     * The hedge delay follows what callers wait: a call answered by its hedge took the hedge delay plus
     * the hedge's own time, not the hedge's time alone. On the client's latency clock (the test's): the
     * first copy is held 20 ms at its replica and never answers; the hedge answers 1 ms after it left.
     */
    @Test
    void aCallAnsweredByItsHedgeFeedsTheHedgeDelayWithWhatTheCallerWaited() {
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong(1_000_000_000L);
        Set<String> seen = ConcurrentHashMap.newKeySet();
        Function<String, Mono<String>> firstHangs = d -> {
            if (seen.add(d)) {
                clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(20)); // the first copy: 20 ms pass while it waits
                return Mono.never();
            }
            clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(1)); // the hedge: answered 1 ms after it left
            return Mono.just("re:" + d);
        };
        client = shard(List.of(replica(firstHangs), replica(firstHangs)))
                .idempotentByDefault(true)
                .timeout(Duration.ofSeconds(20))
                .hedgePolicy(0.5, 1.0)
                .hedgeDelay(Duration.ofNanos(1), Duration.ofMillis(5), 1) // one latency sets the delay
                .latencyClock(clock::get)
                .build();
        awaitLive(2);
        assertThat(client.requestResponse(Mono.just(DefaultPayload.create("h"))).map(ShardClientTest::data).block(Duration.ofSeconds(30)))
                .isEqualTo("re:h");
        assertThat(count("rdma.recovery.hedges.won")).isEqualTo(1.0);
        clock.addAndGet(ShardClient.DEFAULT_LATENCY_WINDOW.toNanos() / 8); // one slice later the delay is recomputed
        assertThat(client.hedgeDelay()).as("the hedge delay after a call that waited 21 ms, answered by its hedge")
                .isBetween(Duration.ofMillis(20), Duration.ofMillis(22));
    }

    /** An attempt that timed out feeds the time it waited (a lower bound), not nothing: the tail counts. */
    @Test
    void anAttemptThatTimesOutFeedsTheHedgeDelayWithTheTimeItWaited() {
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong(1_000_000_000L);
        client = shard(List.of(replica(d -> {
                    clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(40)); // 40 ms pass on the latency clock; no answer
                    return Mono.never();
                })))
                .hedging(false)
                .timeout(Duration.ofMillis(200))
                .hedgePolicy(0.5, 1.0)
                .hedgeDelay(Duration.ofNanos(1), Duration.ofMillis(5), 1)
                .latencyClock(clock::get)
                .build();
        awaitLive(1);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.requestResponse(Mono.just(DefaultPayload.create("t")))
                .block(Duration.ofSeconds(30))).hasCauseInstanceOf(TimeoutException.class);
        clock.addAndGet(ShardClient.DEFAULT_LATENCY_WINDOW.toNanos() / 8);
        assertThat(client.hedgeDelay()).as("the hedge delay after an attempt that timed out after 40 ms (latency clock)")
                .isBetween(Duration.ofMillis(40), Duration.ofMillis(41)); // the histogram keeps 2 significant digits
    }

    /**
     * The picked replica's connection closes between the pick and the read of its socket (the
     * requester's isDisposed() closes it at the pick's look): source() looks again and returns the
     * replica's next connection instead of failing with a NullPointerException.
     */
    @Test
    void sourceLooksAgainWhenThePickedReplicasConnectionClosesRightAfterThePick() {
        java.util.concurrent.atomic.AtomicBoolean closeAtNextLook = new java.util.concurrent.atomic.AtomicBoolean();
        client = shard(List.of(replica(d -> Mono.just("re:" + d))))
                .timeout(Duration.ofSeconds(20))
                .connector(c -> c.payloadDecoder(PayloadDecoder.ZERO_COPY).interceptors(r -> r.forRequester(
                        (io.rsocket.plugins.RSocketInterceptor) rs -> new io.rsocket.util.RSocketProxy(rs) {
                    private volatile boolean closed;

                    @Override
                    public boolean isDisposed() {
                        if (closeAtNextLook.compareAndSet(true, false)) {
                            closed = true;
                            source.dispose();
                            return false; // the pick saw it live; it is closed right after
                        }
                        return closed || source.isDisposed();
                    }
                })))
                .build();
        awaitLive(1);
        closeAtNextLook.set(true);
        RSocket socket = client.source().block(Duration.ofSeconds(30));
        assertThat(closeAtNextLook).as("the pick looked at the connection").isFalse();
        assertThat(socket).isNotNull();
        assertThat(socket.isDisposed()).as("source() returned a closed connection").isFalse();
    }

    /** A payload that runs {@code onRetain} before each retain and {@code onFreed} once its count reaches 0. */
    private record HookedPayload(Payload delegate, Runnable onRetain, Runnable onFreed) implements Payload {
        @Override
        public boolean hasMetadata() {
            return delegate.hasMetadata();
        }

        @Override
        public io.netty.buffer.ByteBuf sliceMetadata() {
            return delegate.sliceMetadata();
        }

        @Override
        public io.netty.buffer.ByteBuf sliceData() {
            return delegate.sliceData();
        }

        @Override
        public io.netty.buffer.ByteBuf data() {
            return delegate.data();
        }

        @Override
        public io.netty.buffer.ByteBuf metadata() {
            return delegate.metadata();
        }

        @Override
        public int refCnt() {
            return delegate.refCnt();
        }

        @Override
        public Payload retain() {
            onRetain.run();
            delegate.retain();
            return this;
        }

        @Override
        public Payload retain(int n) {
            onRetain.run();
            delegate.retain(n);
            return this;
        }

        @Override
        public Payload touch() {
            delegate.touch();
            return this;
        }

        @Override
        public Payload touch(Object hint) {
            delegate.touch(hint);
            return this;
        }

        @Override
        public boolean release() {
            return freed(delegate.release());
        }

        @Override
        public boolean release(int n) {
            return freed(delegate.release(n));
        }

        private boolean freed(boolean last) {
            if (last) {
                onFreed.run();
            }
            return last;
        }
    }
}
