package io.reactorrdma.rsocket.shard;

import io.micrometer.core.instrument.MeterRegistry;
import io.rsocket.core.RSocketConnector;
import io.rsocket.loadbalance.LoadbalanceTarget;
import org.reactivestreams.Publisher;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * What a {@link ShardClient} was built with, fixed at {@link ShardClient.Builder#build()}: the
 * replicas (as load-balance targets, the addresses already resolved through the transport), the
 * shard's name, and every policy of the builder, validated there. A client keeps one and never
 * sees the builder again, so changing a builder after {@code build()} changes no client.
 *
 * <p>It also answers what a call's {@link CallOptions} leave unset: {@link #timeoutOf},
 * {@link #idempotentOf} and {@link #hedgingOf}, the same for every interaction.
 */
record ShardSpec(
        Publisher<List<LoadbalanceTarget>> targets,
        String name,
        MeterRegistry meterRegistry,
        Consumer<RSocketConnector> connectorCustomizer,
        Duration timeout,
        boolean idempotent,
        int maxAttempts,
        double retryBudgetRatio,
        int retryBudgetMinPerSecond,
        Duration budgetWindow,
        boolean hedging,
        double hedgeQuantile,
        double hedgeFraction,
        Duration hedgeFloor,
        Duration hedgeInitialDelay,
        int hedgeMinSamples,
        Duration latencyWindow,
        LongSupplier latencyClock,
        Duration keepAliveInterval,
        Duration keepAliveMaxLifeTime,
        Duration connectTimeout,
        Duration reconnectMinBackoff,
        Duration reconnectMaxBackoff) {

    /** Slices of the latency window. */
    private static final int LATENCY_SLICES = 8;

    /** The per-attempt timeout of a call with {@code options}: its own, else the client's. */
    Duration timeoutOf(CallOptions options) {
        return options.getTimeout() != null ? options.getTimeout() : timeout;
    }

    /** Whether a call with {@code options} may run more than once: its own say, else the client's default. */
    boolean idempotentOf(CallOptions options) {
        return options.isIdempotent() != null ? options.isIdempotent() : idempotent;
    }

    /** Whether a request-response with {@code options} is hedged: only an idempotent one, and only when hedging is on for it. */
    boolean hedgingOf(CallOptions options) {
        return idempotentOf(options) && (options.isHedging() != null ? options.isHedging() : hedging);
    }

    /** A connector for one replica connection: this spec's keepalive, then the customizer. */
    RSocketConnector newConnector() {
        RSocketConnector c = RSocketConnector.create().keepAlive(keepAliveInterval, keepAliveMaxLifeTime);
        connectorCustomizer.accept(c);
        return c;
    }

    /** The retry budget of the client's calls. */
    RetryBudget newRetryBudget() {
        return new RetryBudget(retryBudgetRatio, retryBudgetMinPerSecond, budgetWindow, System::nanoTime);
    }

    /** The cap on the client's hedges. */
    HedgeLimiter newHedgeLimiter() {
        return new HedgeLimiter(hedgeFraction, budgetWindow, System::nanoTime);
    }

    /** The latency quantile that sets the hedge delay, measured on {@link #latencyClock}. */
    LatencyTracker newLatencyTracker() {
        return new LatencyTracker(hedgeQuantile, hedgeFloor, hedgeInitialDelay, hedgeMinSamples, latencyWindow,
                LATENCY_SLICES, latencyClock);
    }
}
