package io.reactorrdma.rsocket.recovery;

import io.rsocket.loadbalance.WeightedStats;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * What RSocket's {@code WeightedLoadbalanceStrategy} weighs a replica by, measured by the shard
 * client itself on every copy it sends: requests in flight, and a peak-sensitive moving average
 * of their latency in microseconds (Finagle's "peak EWMA": a slower sample takes over at once, a
 * faster one blends in). The average decays towards zero while a replica gets no samples (time
 * constant {@code decayNanos}), so a replica that was slow is probed again after a while rather
 * than starved forever. RSocket's own statistics start from a slow-moving median and inherit
 * nothing about cancelled copies; a copy cancelled because its hedge won counts here as a sample
 * of at least its elapsed time. The strategy's weight is then the connection's
 * {@code availability()} (over RDMA: falling as frames queue behind the queue pair) divided by
 * {@code 1 + latency × (pending + 1)}.
 */
final class ReplicaStats implements WeightedStats {

    private final AtomicInteger pending = new AtomicInteger();
    private final long decayNanos;
    private final LongSupplier nanoClock;
    private double ewmaMicros;    // guarded by this
    private long lastSampleNanos; // guarded by this

    ReplicaStats(long decayNanos, LongSupplier nanoClock) {
        this.decayNanos = decayNanos;
        this.nanoClock = nanoClock;
        this.lastSampleNanos = nanoClock.getAsLong();
    }

    /** A copy leaves: returns its start time for {@link #end}. */
    long begin() {
        pending.incrementAndGet();
        return nanoClock.getAsLong();
    }

    /** The copy that began at {@code start} ended (answered, failed or cancelled). */
    void end(long start) {
        pending.decrementAndGet();
        long now = nanoClock.getAsLong();
        double sample = (now - start) / 1000.0;
        synchronized (this) {
            double current = decayed(now);
            double w = Math.exp(-(double) Math.max(0, now - lastSampleNanos) / decayNanos);
            ewmaMicros = sample > current ? sample : current * w + sample * (1 - w);
            lastSampleNanos = now;
        }
    }

    private double decayed(long now) {
        return ewmaMicros * Math.exp(-(double) Math.max(0, now - lastSampleNanos) / decayNanos);
    }

    @Override
    public synchronized double predictedLatency() {
        return decayed(nanoClock.getAsLong());
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
