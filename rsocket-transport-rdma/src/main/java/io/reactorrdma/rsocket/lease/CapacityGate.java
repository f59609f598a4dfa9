package io.reactorrdma.rsocket.lease;

import io.rsocket.RSocket;
import io.rsocket.plugins.RSocketInterceptor;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.Objects;

/**
 * A requester interceptor that holds each request back until its connection has room, because
 * RSocket's {@code sendFrame} has no demand: without it, a fire-and-forget or request-response
 * completes (or is sent) as soon as its frame is queued, and a caller flooding a slow peer queues
 * frames without bound. "Room" is the requester's {@code availability() > 0}: for the RDMA transport,
 * fewer frames queued than its pressure limit; with leases, also a lease with requests left.
 * Waiting requests go in arrival order; each sees room anew after the one before it was sent.
 * They are woken when room may have come — the RDMA queue drained below its limit, a lease was
 * handled, the recovery layer switched connections — without a timer; only a connection of another
 * transport, which cannot tell, is re-checked every {@link Builder#pollInterval}.
 *
 * <pre>{@code
 * RSocketConnector.create()
 *         .interceptors(registry -> registry.forRequester(CapacityGate.create()))
 *         .connect(transport);
 * }</pre>
 *
 * <p>A caller that bounds its concurrency (e.g. {@code flatMap(..., 128)}) is then held at the
 * connection's pace; one that does not gets a {@code RejectedException} beyond
 * {@link Builder#maxWaiting(int)} waiting requests. Waiting requests fail with the connection's
 * error when it closes; one cancelled while it waits releases its payload.
 */
public final class CapacityGate implements RSocketInterceptor {

    /** How often waiting requests look for room again on a connection of another transport (this project's signal room): 1 ms. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(1);

    /** Requests that may wait for room per connection before more are rejected: 256, as RSocket's lease queue. */
    public static final int DEFAULT_MAX_WAITING = 256;

    private final long pollNanos;
    private final int maxWaiting;

    private CapacityGate(Builder b) {
        this.pollNanos = b.pollInterval.toNanos();
        this.maxWaiting = b.maxWaiting;
    }

    /** A gate with the defaults ({@link #DEFAULT_POLL_INTERVAL}, {@link #DEFAULT_MAX_WAITING}). */
    public static CapacityGate create() {
        return builder().build();
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** Wraps one connection's requester. */
    @Override
    public RSocket apply(RSocket requester) {
        return new CapacityGatedRSocket(Objects.requireNonNull(requester, "requester"), Schedulers.parallel(), pollNanos, maxWaiting);
    }

    /** Options of {@link CapacityGate}. */
    public static final class Builder {
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private int maxWaiting = DEFAULT_MAX_WAITING;

        private Builder() {
        }

        /**
         * How often waiting requests look for room again on a connection that cannot signal it (not
         * one of this project's transports); default {@link #DEFAULT_POLL_INTERVAL}.
         */
        public Builder pollInterval(Duration interval) {
            Objects.requireNonNull(interval, "pollInterval");
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("pollInterval must be positive, was " + interval);
            }
            this.pollInterval = interval;
            return this;
        }

        /** Requests that may wait per connection before more are rejected; default {@link #DEFAULT_MAX_WAITING}. */
        public Builder maxWaiting(int requests) {
            if (requests < 1) {
                throw new IllegalArgumentException("maxWaiting must be at least 1, was " + requests);
            }
            this.maxWaiting = requests;
            return this;
        }

        /** The gate, to register with {@code InterceptorRegistry.forRequester}. */
        public CapacityGate build() {
            return new CapacityGate(this);
        }
    }
}
