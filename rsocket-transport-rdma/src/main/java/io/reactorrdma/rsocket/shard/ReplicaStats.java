package io.reactorrdma.rsocket.shard;

import io.rsocket.loadbalance.WeightedStats;

import reactor.core.publisher.SignalType;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * What RSocket's {@code WeightedLoadbalanceStrategy} weighs a replica by, measured by the shard
 * client itself on every copy it sends: requests in flight, and a peak-sensitive moving average
 * of their latency in microseconds (Finagle's "peak EWMA": a slower sample takes over at once, a
 * faster one blends in). The average decays towards zero while a replica gets no samples (time
 * constant {@code decayNanos}), so a replica that was slow is probed again after a while rather
 * than starved forever. RSocket's own statistics start from a slow-moving median and inherit
 * nothing about cancelled copies; a copy cancelled because its hedge won (or its attempt timed
 * out) counts here as a lower bound: it can raise the average, never lower it. The strategy's weight is then the connection's
 * {@code availability()} (over RDMA: falling as frames queue behind the queue pair) divided by
 * {@code 1 + latency × (pending + 1)}.
 */
final class ReplicaStats implements WeightedStats {

    private final AtomicInteger pending = new AtomicInteger();
    private final long decayNanos;
    private final LongSupplier nanoClock;
    /**
     * The average and the time of its last sample, as one immutable pair swapped by CAS: {@link #end}
     * runs where answers arrive, often an I/O thread, which must not wait for a lock.
     */
    private final AtomicReference<Ewma> ewma;

    private record Ewma(double micros, long atNanos) {
        /** The average as it has decayed by {@code now}. */
        double decayed(long now, long decayNanos) {
            return micros * Math.exp(-(double) Math.max(0, now - atNanos) / decayNanos);
        }
    }

    ReplicaStats(long decayNanos, LongSupplier nanoClock) {
        this.decayNanos = decayNanos;
        this.nanoClock = nanoClock;
        this.ewma = new AtomicReference<>(new Ewma(0.0, nanoClock.getAsLong()));
    }

    /** A copy leaves: returns its start time for {@link #end}. */
    long begin() {
        pending.incrementAndGet();
        return nanoClock.getAsLong();
    }

    /**
     * The copy that began at {@code start} ended: answered or failed ({@code ON_COMPLETE},
     * {@code ON_ERROR}: its time is a sample), or cancelled ({@code CANCEL}: its hedge won, or its
     * attempt timed out). A cancelled copy's time is only a lower bound of the replica's latency: it
     * raises the average when longer, and never lowers it — counted as a sample, the copies hedged
     * away from a slow replica made it look fast and drew more calls to it.
     */
    void end(long start, SignalType how) {
        pending.decrementAndGet();
        long now = nanoClock.getAsLong();
        double sample = (now - start) / 1000.0;
        boolean lowerBound = how == SignalType.CANCEL;
        Ewma prev;
        Ewma next;
        do {
            prev = ewma.get();
            double w = Math.exp(-(double) Math.max(0, now - prev.atNanos()) / decayNanos);
            double current = prev.micros() * w;
            if (sample > current) {
                next = new Ewma(sample, Math.max(now, prev.atNanos()));
            } else if (lowerBound) {
                return;
            } else {
                next = new Ewma(current + sample * (1 - w), Math.max(now, prev.atNanos())); // current is already prev × w
            }
        } while (!ewma.compareAndSet(prev, next));
    }

    @Override
    public double predictedLatency() {
        return ewma.get().decayed(nanoClock.getAsLong(), decayNanos);
    }

    // the same value as both quantiles: the strategy then applies no band correction
    @Override
    public double lowerQuantileLatency() {
        return predictedLatency();
    }

    @Override
    public double higherQuantileLatency() {
        return predictedLatency();
    }

    @Override
    public int pending() {
        return pending.get();
    }

    /** Failures already steer calls away through latency and retries; capacity comes from the connection. */
    @Override
    public double weightedAvailability() {
        return 1.0;
    }
}
