package io.reactorrdma.rsocket.shard;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.reactorrdma.config.SoftConfig;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketClient;
import io.rsocket.core.RSocketConnector;
import io.rsocket.loadbalance.LoadbalanceStrategy;
import io.rsocket.loadbalance.LoadbalanceTarget;
import io.rsocket.loadbalance.WeightedLoadbalanceStrategy;
import io.rsocket.loadbalance.WeightedStats;
import io.rsocket.transport.ClientTransport;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.annotation.Nullable;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * A client of one shard served by several replicas: an {@link RSocketClient} that balances
 * requests over the live replicas with RSocket's {@link WeightedLoadbalanceStrategy} (latency,
 * pending requests and the connection's {@code availability()}, which over RDMA falls as frames
 * queue behind a saturated queue pair), ejects a replica whose connection closes and reconnects
 * it with back-off, retries idempotent calls on another replica within a retry budget, and
 * hedges slow idempotent request-responses.
 *
 * <pre>{@code
 * ShardClient shard = ShardClient.builder()
 *         .replicas(List.of(new InetSocketAddress("ps-0a", 7000), new InetSocketAddress("ps-0b", 7000)))
 *         .build();
 * Mono<Payload> answer = shard.requestResponse(Mono.just(DefaultPayload.create("w/42")))
 *         .contextWrite(CallOptions.idempotent().timeout(Duration.ofMillis(200)));
 * }</pre>
 *
 * Why not {@code LoadbalanceRSocketClient} itself: its pool cannot leave out the replica a call
 * just failed on, and it reconnects a closed replica only when a request is routed to it, which
 * the weighted strategy never does for an unavailable one; this class keeps RSocket's strategy,
 * targets and connector and adds those, and feeds the strategy its own {@code ReplicaStats}.
 * Request-response gets timeouts, retries and hedging; fire-and-forget, streams, channels and
 * metadata-push go to one selected live replica (waiting up to the timeout for one) and are not
 * retried. A call that fails because its replica's connection closed fails with a
 * {@link PeerClosedChannelException} naming the replica and why the connection closed. Every
 * interaction picks its replica on one path and resolves its {@link CallOptions} against the
 * settings the builder fixed at {@code build()}, which the client keeps (changing the builder
 * afterwards changes no client).
 */
public final class ShardClient implements RSocketClient {

    /** Per-attempt timeout when a call sets none: 1 s. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(1);
    /** Whether calls that do not say are idempotent (retried and hedged): false. */
    public static final boolean DEFAULT_IDEMPOTENT = false;
    /** Most attempts of one idempotent call, the first included: 3. */
    public static final int DEFAULT_MAX_ATTEMPTS = 3;
    /** Retries may add this fraction of the calls of the budget window: 10 %. */
    public static final double DEFAULT_RETRY_BUDGET_RATIO = 0.1;
    /** Retries always allowed per second of the window, however few the calls: 10. */
    public static final int DEFAULT_RETRY_BUDGET_MIN_PER_SECOND = 10;
    /** The sliding window of the retry budget and of the hedge cap: 10 s. */
    public static final Duration DEFAULT_BUDGET_WINDOW = Duration.ofSeconds(10);
    /** Whether idempotent request-responses are hedged: true. */
    public static final boolean DEFAULT_HEDGING = true;
    /** The latency quantile after which a hedge goes out: the shard's p95. */
    public static final double DEFAULT_HEDGE_QUANTILE = 0.95;
    /** Hedges may be at most this fraction of the window's hedgeable calls: 5 %. */
    public static final double DEFAULT_HEDGE_FRACTION = 0.05;
    /** The hedge delay never falls below this: 1 ms. */
    public static final Duration DEFAULT_HEDGE_FLOOR = Duration.ofMillis(1);
    /** The hedge delay until the window holds {@link #DEFAULT_HEDGE_MIN_SAMPLES} latencies: 50 ms. */
    public static final Duration DEFAULT_HEDGE_INITIAL_DELAY = Duration.ofMillis(50);
    /** Latencies the quantile needs before it replaces the initial delay: 100. */
    public static final int DEFAULT_HEDGE_MIN_SAMPLES = 100;
    /** The window of the latency quantile (8 slices): 2 s. */
    public static final Duration DEFAULT_LATENCY_WINDOW = Duration.ofSeconds(2);
    /** RSocket keepalive interval: the engine's heartbeat interval, 1 s. */
    public static final Duration DEFAULT_KEEPALIVE_INTERVAL = EngineConfig.DEFAULT_HEARTBEAT_INTERVAL;
    /** RSocket keepalive's silence bound: the soft provider's peer timeout, 4 s. */
    public static final Duration DEFAULT_KEEPALIVE_MAX_LIFETIME = SoftConfig.DEFAULT_PEER_TIMEOUT;
    /** One connection attempt to a replica may take this long: 5 s. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** First reconnect back-off of an ejected replica: 100 ms, doubling (jitter ±50 %). */
    public static final Duration DEFAULT_RECONNECT_MIN_BACKOFF = Duration.ofMillis(100);
    /** Longest reconnect back-off: 2 s. */
    public static final Duration DEFAULT_RECONNECT_MAX_BACKOFF = Duration.ofSeconds(2);

    private static final Logger LOG = Loggers.getLogger(ShardClient.class);
    /** How often a call waiting for a live replica looks again. */
    private static final Duration SELECT_POLL = Duration.ofMillis(5);
    /** How fast a replica's latency estimate fades without samples, so a once-slow replica is probed again. */
    private static final Duration STATS_DECAY = Duration.ofSeconds(1);

    private final ShardSpec spec;
    private final RecoveryMeters meters;
    private final LoadbalanceStrategy strategy = WeightedLoadbalanceStrategy.builder()
            .weightedStatsResolver(rs -> rs instanceof WeightedStats w ? w : null).build();
    private final RetryBudget budget;
    private final HedgeLimiter hedgeLimiter;
    private final LatencyTracker latency;
    private final LongSupplier latencyClock;
    private final Map<LoadbalanceTarget, Replica> replicas = new ConcurrentHashMap<>();
    private final Disposable targetSubscription;
    private volatile boolean disposed;

    private ShardClient(ShardSpec spec) {
        this.spec = spec;
        this.meters = new RecoveryMeters(spec.meterRegistry(), spec.name());
        this.budget = spec.newRetryBudget();
        this.hedgeLimiter = spec.newHedgeLimiter();
        this.latencyClock = spec.latencyClock();
        this.latency = spec.newLatencyTracker();
        this.targetSubscription = Flux.from(spec.targets()).subscribe(this::onTargets,
                e -> LOG.warn("the replica list of the shard failed; keeping the replicas it had", e));
    }

    /** A builder with the defaults named by this class's {@code DEFAULT_*} constants. */
    public static Builder builder() {
        return new Builder();
    }

    private synchronized void onTargets(List<LoadbalanceTarget> targets) {
        if (disposed) {
            return;
        }
        Set<LoadbalanceTarget> wanted = Set.copyOf(targets);
        replicas.entrySet().removeIf(e -> {
            if (wanted.contains(e.getKey())) {
                return false;
            }
            LOG.debug("replica {} left the shard's list: closing it", e.getKey().getKey());
            e.getValue().dispose();
            return true;
        });
        for (LoadbalanceTarget t : targets) {
            replicas.computeIfAbsent(t, k -> {
                Replica r = new Replica(k, spec::newConnector, spec.connectTimeout(), spec.reconnectMinBackoff(),
                        spec.reconnectMaxBackoff(), meters.ejections(k.getKey()),
                        new ReplicaStats(STATS_DECAY.toNanos(), System::nanoTime));
                r.start();
                return r;
            });
        }
    }

    /** The keys of the replicas that are live now (connected and not ejected). */
    public List<String> liveReplicas() {
        List<String> live = new ArrayList<>();
        for (Replica r : replicas.values()) {
            if (r.connected() != null) {
                live.add(r.key());
            }
        }
        Collections.sort(live);
        return live;
    }

    /** Requests sent to each replica so far (attempts and hedges included), by replica key. */
    public Map<String, Long> requestsSent() {
        Map<String, Long> sent = new LinkedHashMap<>();
        replicas.values().stream().sorted((a, b) -> a.key().compareTo(b.key())).forEach(r -> sent.put(r.key(), r.sent()));
        return sent;
    }

    /** The hedge delay now: the shard's latency quantile of recent calls, at least the floor (see {@link Builder#hedgeDelay}). */
    public Duration hedgeDelay() {
        return Duration.ofNanos(latency.delayNanos());
    }

    /** Requests in flight on each replica now (attempts and hedges sent and not yet ended), by replica key. */
    public Map<String, Integer> requestsInFlight() {
        Map<String, Integer> inFlight = new LinkedHashMap<>();
        replicas.values().stream().sorted((x, y) -> x.key().compareTo(y.key())).forEach(r -> inFlight.put(r.key(), r.stats().pending()));
        return inFlight;
    }

    // ---------------------------------------------------------------- selection

    /** A live replica, preferring ones not in {@code avoid}; null when none is live. */
    @Nullable
    private Replica pick(Set<Replica> avoid, boolean mustAvoid) {
        List<Replica> candidates = new ArrayList<>(replicas.size());
        List<RSocket> sockets = new ArrayList<>(replicas.size());
        for (int pass = 0; pass < 2 && candidates.isEmpty(); pass++) {
            if (pass == 1 && mustAvoid) {
                break;
            }
            for (Replica r : replicas.values()) {
                Replica.Connected c = r.connected();
                if (c != null && (pass == 1 || !avoid.contains(r))) {
                    candidates.add(r);
                    sockets.add(c.weighted());
                }
            }
        }
        if (candidates.isEmpty()) {
            return null;
        }
        RSocket chosen = candidates.size() == 1 ? sockets.get(0) : strategy.select(sockets);
        int i = sockets.indexOf(chosen);
        return candidates.get(i < 0 ? 0 : i);
    }

    /** A live replica; waits (polling) while none is, until the caller's timeout cancels. */
    private Mono<Replica> select(Set<Replica> avoid) {
        return Mono.fromSupplier(() -> pick(avoid, false))
                .repeatWhenEmpty(Integer.MAX_VALUE, ticks -> ticks.delayElements(SELECT_POLL))
                .onErrorMap(IllegalStateException.class, e -> new IllegalStateException(
                        "no live replica in the shard " + replicas.keySet() + "; they are reconnecting", e));
    }

    // ---------------------------------------------------------------- request-response

    /**
     * Sends the request to a live replica, within the call's timeout per attempt; an idempotent
     * call is retried on another replica (within the retry budget) and hedged after the shard's
     * latency quantile. The call's {@link CallOptions} come from the subscriber's context.
     */
    @Override
    public Mono<Payload> requestResponse(Mono<Payload> payloadMono) {
        return Mono.deferContextual(ctx -> {
            CallOptions options = CallOptions.from(ctx);
            return payloadMono.flatMap(p -> Mono.using(() -> p, payload -> new Call(payload, options).run(),
                    Payload::release, true));
        })
                // what an operator of the call drops on a cancel race (an answer, an unsent request) is released
                .doOnDiscard(Payload.class, Payload::release);
    }

    /** One request-response: its attempts, retries and hedges. */
    private final class Call {
        private final Payload payload;
        private final Duration timeout;
        private final boolean idempotent;
        private final boolean hedging;
        private final Set<Replica> tried = ConcurrentHashMap.newKeySet();

        Call(Payload payload, CallOptions options) {
            this.payload = payload;
            this.timeout = spec.timeoutOf(options);
            this.idempotent = spec.idempotentOf(options);
            this.hedging = spec.hedgingOf(options);
        }

        Mono<Payload> run() {
            budget.onCall();
            if (hedging) {
                hedgeLimiter.onCall();
            }
            return attempt(1);
        }

        /**
         * One attempt: its first copy and, when slow, its hedge. Its latency (what the caller waited from
         * the first copy on, whichever copy answered) feeds the hedge delay; an attempt that timed out
         * feeds the time it waited, a lower bound of the shard's latency, so the tail is not left out.
         */
        private Mono<Payload> attempt(int n) {
            return Mono.defer(() -> {
                AtomicLong sentAt = new AtomicLong(-1);
                Mono<Payload> one = select(tried).flatMap(first -> {
                    sentAt.set(latencyClock.getAsLong());
                    return hedging
                            ? HedgedRace.race(send(first, false), Duration.ofNanos(latency.delayNanos()), this::hedge,
                                    meters.hedgesWon::increment, Schedulers.parallel())
                            : send(first, false);
                }).doOnSuccess(v -> recordSince(sentAt));
                return one.timeout(timeout)
                        .doOnError(TimeoutException.class, e -> recordSince(sentAt))
                        .onErrorResume(e -> retry(n, e));
            });
        }

        private void recordSince(AtomicLong sentAt) {
            long start = sentAt.get();
            if (start >= 0) {
                latency.record(latencyClock.getAsLong() - start);
            }
        }

        private Mono<Payload> retry(int n, Throwable error) {
            if (!idempotent || !RetryableErrors.isRetryable(error) || n >= spec.maxAttempts() || disposed) {
                return Mono.error(error);
            }
            if (!budget.tryRetry()) {
                meters.budgetExhausted.increment();
                LOG.debug("retry budget used up: the call fails with {}", error.toString());
                return Mono.error(error);
            }
            meters.retries.increment();
            if (LOG.isDebugEnabled()) {
                LOG.debug("retrying an idempotent call (attempt {}) away from {} after {}", n + 1, keys(tried), error.toString());
            }
            return attempt(n + 1);
        }

        @Nullable
        private Mono<Payload> hedge() {
            Replica second = pick(tried, true);
            if (second == null || !hedgeLimiter.tryHedge()) {
                return null;
            }
            return send(second, true);
        }

        /**
         * One copy on one replica; its latency feeds the hedge delay when it answers. Nothing is
         * counted (sent, in flight, hedged) unless the copy goes out: a hedge whose timer fired as
         * the first copy answered finds the request released by the call's end and is not sent.
         */
        private Mono<Payload> send(Replica replica, boolean isHedge) {
            tried.add(replica);
            return Mono.defer(() -> {
                Replica.Connected c = replica.connected();
                if (c == null) {
                    return Mono.error(new PeerClosedChannelException(replica.key(), null));
                }
                if (!tryRetain(payload)) {
                    return Mono.error(new IllegalStateException("the call ended before this copy of its request was sent"));
                }
                if (isHedge) {
                    meters.hedges.increment();
                    if (LOG.isDebugEnabled()) {
                        LOG.debug("hedging a slow call on replica {} (first copy on {})", replica.key(), keys(tried));
                    }
                }
                replica.onSend();
                ReplicaStats stats = replica.stats();
                long start = stats.begin();
                return c.weighted().requestResponse(payload)
                        .onErrorResume(e -> replica.failNamingPeer(c, e))
                        .doFinally(signal -> stats.end(start, signal));
            });
        }
    }

    /** Retains {@code p} for one more copy; false when it was released already (its call ended). */
    private static boolean tryRetain(Payload p) {
        try {
            p.retain();
            return true;
        } catch (io.netty.util.IllegalReferenceCountException released) {
            return false;
        }
    }

    private static String keys(Set<Replica> rs) {
        List<String> k = new ArrayList<>();
        for (Replica r : rs) {
            k.add(r.key());
        }
        return k.toString();
    }

    // ---------------------------------------------------------------- the other interactions: one replica, no retry

    /** Sends to one live replica (waiting up to the call's timeout for one); never retried. */
    @Override
    public Mono<Void> fireAndForget(Mono<Payload> payloadMono) {
        return onOneReplica(payloadMono, RSocket::fireAndForget).then();
    }

    /** Streams from one live replica (waiting up to the call's timeout for one); never retried. */
    @Override
    public Flux<Payload> requestStream(Mono<Payload> payloadMono) {
        return onOneReplica(payloadMono, RSocket::requestStream);
    }

    /** Opens the channel with one live replica (waiting up to the call's timeout for one); never retried. */
    @Override
    public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
        return onOneReplica(socket -> socket.requestChannel(payloads));
    }

    /** Pushes to one live replica (waiting up to the call's timeout for one); never retried. */
    @Override
    public Mono<Void> metadataPush(Mono<Payload> payloadMono) {
        return onOneReplica(payloadMono, RSocket::metadataPush).then();
    }

    /**
     * The path of every interaction but request-response: {@link #onOneReplica(Function)} with the
     * request, held until the call ends (then released, whatever the replica did with its copy).
     * The replica's connection gets its own reference, taken only when the request goes out.
     */
    private <T> Flux<T> onOneReplica(Mono<Payload> payloadMono, BiFunction<RSocket, Payload, Publisher<T>> interaction) {
        return payloadMono.flatMapMany(p -> Flux.using(() -> p,
                payload -> onOneReplica(socket -> interaction.apply(socket, payload.retain())), Payload::release, true));
    }

    /**
     * One interaction on one live replica, picked as request-responses are (waiting up to the
     * call's timeout, from the subscriber's {@link CallOptions}, for one) and counted as sent to it;
     * never retried. A failure of the replica's connection names the replica ({@link Replica#call}).
     */
    private <T> Flux<T> onOneReplica(Function<RSocket, Publisher<T>> interaction) {
        return Flux.deferContextual(ctx -> select(Collections.emptySet())
                .timeout(spec.timeoutOf(CallOptions.from(ctx)))
                .doOnNext(Replica::onSend)
                .flatMapMany(r -> r.call(interaction)));
    }

    /**
     * A live replica's RSocket (waiting up to the default timeout for one). The connection is read
     * once, after the pick: one that closed in between is no answer, and the pick is made again.
     */
    @Override
    public Mono<RSocket> source() {
        return select(Collections.emptySet())
                .flatMap(r -> Mono.justOrEmpty(r.connected()))
                .repeatWhenEmpty(Integer.MAX_VALUE, ticks -> ticks.delayElements(SELECT_POLL))
                .timeout(spec.timeout())
                .map(Replica.Connected::socket);
    }

    /** Completes when the client is disposed and every replica's connection has closed. */
    @Override
    public Mono<Void> onClose() {
        return Mono.defer(() -> Mono.when(replicas.values().stream().map(Replica::onClose).toList()));
    }

    /** Closes every replica's connection and stops reconnecting. */
    @Override
    public synchronized void dispose() {
        if (disposed) {
            return;
        }
        disposed = true;
        targetSubscription.dispose();
        for (Replica r : replicas.values()) {
            r.dispose();
        }
    }

    /** Whether {@link #dispose()} was called. */
    @Override
    public boolean isDisposed() {
        return disposed;
    }

    /**
     * Configures a {@link ShardClient}. Defaults are the {@code DEFAULT_*} constants of
     * {@link ShardClient}; the replica list and nothing else is required.
     */
    public static final class Builder {
        private Publisher<List<LoadbalanceTarget>> targets;
        private Function<InetSocketAddress, ClientTransport> transport =
                a -> RdmaClientTransport.create(a.getHostString(), a.getPort());
        private List<InetSocketAddress> addresses;
        private Consumer<RSocketConnector> connectorCustomizer = c -> { };
        private MeterRegistry meterRegistry = Metrics.globalRegistry;
        private String name;
        private Duration timeout = DEFAULT_TIMEOUT;
        private boolean idempotent = DEFAULT_IDEMPOTENT;
        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
        private double retryBudgetRatio = DEFAULT_RETRY_BUDGET_RATIO;
        private int retryBudgetMinPerSecond = DEFAULT_RETRY_BUDGET_MIN_PER_SECOND;
        private Duration budgetWindow = DEFAULT_BUDGET_WINDOW;
        private boolean hedging = DEFAULT_HEDGING;
        private double hedgeQuantile = DEFAULT_HEDGE_QUANTILE;
        private double hedgeFraction = DEFAULT_HEDGE_FRACTION;
        private Duration hedgeFloor = DEFAULT_HEDGE_FLOOR;
        private Duration hedgeInitialDelay = DEFAULT_HEDGE_INITIAL_DELAY;
        private int hedgeMinSamples = DEFAULT_HEDGE_MIN_SAMPLES;
        private Duration latencyWindow = DEFAULT_LATENCY_WINDOW;
        private LongSupplier latencyClock = System::nanoTime;
        private Duration keepAliveInterval = DEFAULT_KEEPALIVE_INTERVAL;
        private Duration keepAliveMaxLifeTime = DEFAULT_KEEPALIVE_MAX_LIFETIME;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration reconnectMinBackoff = DEFAULT_RECONNECT_MIN_BACKOFF;
        private Duration reconnectMaxBackoff = DEFAULT_RECONNECT_MAX_BACKOFF;

        private Builder() {
        }

        /** The replicas' addresses; each is reached through {@link #transport(Function)} and keyed {@code host:port}. */
        public Builder replicas(List<InetSocketAddress> addresses) {
            Objects.requireNonNull(addresses, "addresses");
            if (addresses.isEmpty()) {
                throw new IllegalArgumentException("a shard needs at least one replica address");
            }
            this.addresses = List.copyOf(addresses);
            this.targets = null;
            return this;
        }

        /**
         * The replicas as RSocket load-balance targets, a list per change (as
         * {@code LoadbalanceRSocketClient} takes them): replicas that leave a list are closed,
         * new ones connected. Replaces {@link #replicas(List)}; {@link #transport(Function)} is then unused.
         */
        public Builder targets(Publisher<List<LoadbalanceTarget>> targets) {
            this.targets = Objects.requireNonNull(targets, "targets");
            this.addresses = null;
            return this;
        }

        /**
         * How a replica address is reached; default {@link RdmaClientTransport#create(String, int)} on the
         * JVM-wide resources. Plug a fallback transport (RDMA, else TCP) in here.
         */
        public Builder transport(Function<InetSocketAddress, ClientTransport> transport) {
            this.transport = Objects.requireNonNull(transport, "transport");
            return this;
        }

        /**
         * Customises the connector of every replica connection (payload decoder, setup, leases,
         * interceptors, or another keepalive); runs after this builder's keepalive is set.
         */
        public Builder connector(Consumer<RSocketConnector> customizer) {
            this.connectorCustomizer = Objects.requireNonNull(customizer, "customizer");
            return this;
        }

        /**
         * The shard's name: the tag {@code shard} of its {@code rdma.recovery.*} meters, so that the
         * shard clients of one registry count apart; default: its replicas' keys ({@code host:port,...}).
         */
        public Builder name(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("a shard's name must not be blank; it tags the shard's rdma.recovery.* meters");
            }
            this.name = name;
            return this;
        }

        /** The clock the call latencies (and so the hedge delay) are measured on; tests give their own. */
        Builder latencyClock(LongSupplier nanoClock) {
            this.latencyClock = Objects.requireNonNull(nanoClock, "nanoClock");
            return this;
        }

        /** Where the meters go; default {@link Metrics#globalRegistry}. */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** The per-attempt timeout of calls that set none ({@link #DEFAULT_TIMEOUT}). */
        public Builder timeout(Duration timeout) {
            this.timeout = positive("timeout", timeout);
            return this;
        }

        /** Whether calls that do not say are idempotent ({@link #DEFAULT_IDEMPOTENT}). */
        public Builder idempotentByDefault(boolean idempotent) {
            this.idempotent = idempotent;
            return this;
        }

        /** Most attempts of an idempotent call, the first included ({@link #DEFAULT_MAX_ATTEMPTS}); 1 turns retries off. */
        public Builder maxAttempts(int attempts) {
            if (attempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be at least 1 (no retry), got " + attempts);
            }
            this.maxAttempts = attempts;
            return this;
        }

        /**
         * The retry budget: retries may add {@code ratio} of the calls of the window plus
         * {@code minPerSecond} per second of it ({@link #DEFAULT_RETRY_BUDGET_RATIO},
         * {@link #DEFAULT_RETRY_BUDGET_MIN_PER_SECOND}, {@link #DEFAULT_BUDGET_WINDOW}).
         */
        public Builder retryBudget(double ratio, int minPerSecond, Duration window) {
            new RetryBudget(ratio, minPerSecond, window, System::nanoTime); // validates
            this.retryBudgetRatio = ratio;
            this.retryBudgetMinPerSecond = minPerSecond;
            this.budgetWindow = window;
            return this;
        }

        /** Whether idempotent request-responses are hedged ({@link #DEFAULT_HEDGING}). */
        public Builder hedging(boolean enabled) {
            this.hedging = enabled;
            return this;
        }

        /**
         * The hedge policy: the latency quantile that sets the delay and the largest fraction of
         * calls that may be hedged ({@link #DEFAULT_HEDGE_QUANTILE}, {@link #DEFAULT_HEDGE_FRACTION}).
         */
        public Builder hedgePolicy(double quantile, double fraction) {
            new LatencyTracker(quantile, hedgeFloor, hedgeInitialDelay, hedgeMinSamples, latencyWindow, 8, System::nanoTime);
            new HedgeLimiter(fraction, budgetWindow, System::nanoTime);
            this.hedgeQuantile = quantile;
            this.hedgeFraction = fraction;
            return this;
        }

        /**
         * The hedge delay's floor, the delay used until {@code minSamples} latencies are known,
         * and that number ({@link #DEFAULT_HEDGE_FLOOR}, {@link #DEFAULT_HEDGE_INITIAL_DELAY},
         * {@link #DEFAULT_HEDGE_MIN_SAMPLES}).
         */
        public Builder hedgeDelay(Duration floor, Duration initialDelay, int minSamples) {
            if (minSamples < 1) {
                throw new IllegalArgumentException("minSamples must be at least 1, got " + minSamples);
            }
            new LatencyTracker(hedgeQuantile, floor, initialDelay, minSamples, latencyWindow, 8, System::nanoTime);
            this.hedgeFloor = floor;
            this.hedgeInitialDelay = initialDelay;
            this.hedgeMinSamples = minSamples;
            return this;
        }

        /**
         * RSocket keepalive of every replica connection ({@link #DEFAULT_KEEPALIVE_INTERVAL},
         * {@link #DEFAULT_KEEPALIVE_MAX_LIFETIME}): finds a replica that is alive but silent
         * (stopped, hung) on any transport; over shm the peer timeout finds it too.
         */
        public Builder keepAlive(Duration interval, Duration maxLifeTime) {
            this.keepAliveInterval = positive("keepalive interval", interval);
            this.keepAliveMaxLifeTime = positive("keepalive max lifetime", maxLifeTime);
            if (maxLifeTime.compareTo(interval) <= 0) {
                throw new IllegalArgumentException("keepalive max lifetime " + maxLifeTime + " must exceed the interval " + interval);
            }
            return this;
        }

        /** How long one connection attempt may take ({@link #DEFAULT_CONNECT_TIMEOUT}). */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive("connect timeout", timeout);
            return this;
        }

        /**
         * Reconnect back-off of an ejected replica ({@link #DEFAULT_RECONNECT_MIN_BACKOFF} doubling to
         * {@link #DEFAULT_RECONNECT_MAX_BACKOFF}).
         */
        public Builder reconnectBackoff(Duration min, Duration max) {
            this.reconnectMinBackoff = positive("minimum back-off", min);
            this.reconnectMaxBackoff = positive("maximum back-off", max);
            if (max.compareTo(min) < 0) {
                throw new IllegalArgumentException("maximum back-off " + max + " is below the minimum " + min);
            }
            return this;
        }

        private static Duration positive(String what, Duration d) {
            Objects.requireNonNull(d, what);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive, got " + d);
            }
            return d;
        }

        /** Builds the client; it starts connecting to every replica at once. */
        public ShardClient build() {
            if (targets == null && addresses == null) {
                throw new IllegalStateException("no replicas: call replicas(addresses) or targets(publisher) before build()");
            }
            return new ShardClient(spec());
        }

        /** This builder's settings, fixed: the addresses turned into targets through the transport, the default name given. */
        private ShardSpec spec() {
            String shardName = name != null ? name
                    : addresses == null ? "targets" : String.join(",",
                            addresses.stream().map(a -> a.getHostString() + ":" + a.getPort()).toList());
            Publisher<List<LoadbalanceTarget>> shardTargets = targets;
            if (shardTargets == null) {
                List<LoadbalanceTarget> list = new ArrayList<>();
                for (InetSocketAddress a : addresses) {
                    list.add(LoadbalanceTarget.from(a.getHostString() + ":" + a.getPort(), transport.apply(a)));
                }
                shardTargets = Flux.just(list);
            }
            return new ShardSpec(shardTargets, shardName, meterRegistry, connectorCustomizer, timeout, idempotent, maxAttempts,
                    retryBudgetRatio, retryBudgetMinPerSecond, budgetWindow, hedging, hedgeQuantile, hedgeFraction, hedgeFloor,
                    hedgeInitialDelay, hedgeMinSamples, latencyWindow, latencyClock, keepAliveInterval, keepAliveMaxLifeTime,
                    connectTimeout, reconnectMinBackoff, reconnectMaxBackoff);
        }

        /**
         * Builds the client and completes with it once at least one replica is live; fails (and
         * closes the client) if none is within the connect timeout.
         */
        public Mono<ShardClient> connect() {
            return Mono.defer(() -> {
                ShardClient client = build();
                Duration bound = client.spec.connectTimeout();
                return client.select(Collections.emptySet())
                        .timeout(bound, Mono.error(() -> new java.util.concurrent.TimeoutException("no replica of the shard "
                                + client.replicas.keySet().stream().map(LoadbalanceTarget::getKey).toList() + " became live within "
                                + bound.toMillis() + " ms (the connect timeout): check their addresses and that they run")))
                        .thenReturn(client)
                        .doOnError(e -> client.dispose())
                        .doOnCancel(client::dispose);
            });
        }
    }
}
