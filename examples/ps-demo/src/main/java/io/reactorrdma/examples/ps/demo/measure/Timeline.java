package io.reactorrdma.examples.ps.demo.measure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Requests answered and failed per {@link #DEFAULT_BUCKET} bucket, with their latencies summed, from
 * a start time on; and named moments (a kill, a restart). Recording is lock-free (one atomic add per
 * counter); a request past the last bucket is counted in the last one.
 */
public final class Timeline {

    /** Bucket width: 100 ms. */
    public static final Duration DEFAULT_BUCKET = Duration.ofMillis(100);

    /** A named moment, {@code seconds} after the start. */
    public record Mark(String label, double seconds) {
    }

    private final long start;
    private final long bucketNanos = DEFAULT_BUCKET.toNanos();
    private final AtomicLongArray answered;
    private final AtomicLongArray failed;
    private final AtomicLongArray latencySum;
    private final List<Mark> marks = new ArrayList<>();
    private volatile long end;

    /** A timeline starting now, long enough for {@code span}. */
    public Timeline(Duration span) {
        this.start = System.nanoTime();
        int buckets = (int) Math.max(1, span.toNanos() / bucketNanos + 1);
        answered = new AtomicLongArray(buckets);
        failed = new AtomicLongArray(buckets);
        latencySum = new AtomicLongArray(buckets);
    }

    private int bucket(long nanoTime) {
        long b = Math.max(0, (nanoTime - start) / bucketNanos);
        return (int) Math.min(b, answered.length() - 1);
    }

    /** A request answered now, after {@code latencyNanos}. */
    public void answered(long latencyNanos) {
        int b = bucket(System.nanoTime());
        answered.incrementAndGet(b);
        latencySum.addAndGet(b, latencyNanos);
    }

    /** A request failed now. */
    public void failed() {
        failed.incrementAndGet(bucket(System.nanoTime()));
    }

    /** Names this moment. */
    public synchronized void mark(String label) {
        marks.add(new Mark(label, seconds(System.nanoTime())));
    }

    /** Seconds from the start to {@code nanoTime}. */
    public double seconds(long nanoTime) {
        return (nanoTime - start) / 1e9;
    }

    /** The named moments. */
    public synchronized List<Mark> marks() {
        return List.copyOf(marks);
    }

    /** The run is over: later buckets are not shown. */
    public void end() {
        end = System.nanoTime();
    }

    /** Buckets up to the end (or up to now while running; all, if the span has passed). */
    public int buckets() {
        long last = end != 0 ? end : System.nanoTime();
        return Math.min(answered.length(), bucket(last) + 1);
    }

    /** Bucket {@code i}'s start, in seconds. */
    public double at(int i) {
        return i * bucketNanos / 1e9;
    }

    /** Requests answered per second in bucket {@code i}. */
    public double rate(int i) {
        return answered.get(i) * 1e9 / bucketNanos;
    }

    /** Requests failed in bucket {@code i}. */
    public long failed(int i) {
        return failed.get(i);
    }

    /** Mean latency of bucket {@code i} in milliseconds; NaN when it has no answer. */
    public double meanMillis(int i) {
        long n = answered.get(i);
        return n == 0 ? Double.NaN : latencySum.get(i) / (double) n / 1e6;
    }
}
