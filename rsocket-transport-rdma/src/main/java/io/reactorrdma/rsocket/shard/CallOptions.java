package io.reactorrdma.rsocket.shard;

import reactor.util.annotation.Nullable;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

/**
 * Per-call options, carried in the Reactor Context:
 * {@code client.requestResponse(p).contextWrite(CallOptions.idempotent().timeout(Duration.ofMillis(200)))}.
 * What a call does not set comes from the client: its default timeout
 * ({@link ShardClient#DEFAULT_TIMEOUT}) and whether calls are idempotent by default
 * ({@link ShardClient#DEFAULT_IDEMPOTENT}). Only idempotent calls are retried or hedged.
 * Immutable; each method returns a new instance.
 */
public final class CallOptions implements Function<Context, Context> {

    private static final CallOptions INHERIT = new CallOptions(null, null, null);

    @Nullable private final Boolean idempotent;
    @Nullable private final Duration timeout;
    @Nullable private final Boolean hedging;

    private CallOptions(@Nullable Boolean idempotent, @Nullable Duration timeout, @Nullable Boolean hedging) {
        this.idempotent = idempotent;
        this.timeout = timeout;
        this.hedging = hedging;
    }

    /** Options that set nothing: every value comes from the client. */
    public static CallOptions inherit() {
        return INHERIT;
    }

    /** The call may run more than once: it may be retried on another replica and hedged. */
    public static CallOptions idempotent() {
        return new CallOptions(Boolean.TRUE, null, null);
    }

    /** The call must run at most once: it is never retried or hedged, and fails with its cause. */
    public static CallOptions notIdempotent() {
        return new CallOptions(Boolean.FALSE, null, null);
    }

    /**
     * The timeout of each attempt (a retry gets a fresh one): an attempt that has no answer by then
     * fails with {@link java.util.concurrent.TimeoutException} and, if the call is idempotent, is
     * retried. Must be positive.
     */
    public CallOptions timeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout + ": pass the time one attempt may take");
        }
        return new CallOptions(idempotent, timeout, hedging);
    }

    /** Whether this idempotent request-response may be hedged (default: the client's setting). */
    public CallOptions hedging(boolean enabled) {
        return new CallOptions(idempotent, timeout, enabled);
    }

    /** Whether the call is idempotent, or {@code null} to use the client's default. */
    @Nullable
    public Boolean isIdempotent() {
        return idempotent;
    }

    /** The per-attempt timeout, or {@code null} to use the client's default. */
    @Nullable
    public Duration getTimeout() {
        return timeout;
    }

    /** Whether hedging is allowed, or {@code null} to use the client's default. */
    @Nullable
    public Boolean isHedging() {
        return hedging;
    }

    /** Puts these options into {@code context}, so {@code mono.contextWrite(options)} works. */
    @Override
    public Context apply(Context context) {
        return context.put(CallOptions.class, this);
    }

    /** The options a call carries in its context, or {@link #inherit()} when it carries none. */
    public static CallOptions from(ContextView context) {
        return context.getOrDefault(CallOptions.class, INHERIT);
    }

    @Override
    public String toString() {
        return "CallOptions{idempotent=" + idempotent + ", timeout=" + timeout + ", hedging=" + hedging + "}";
    }
}
