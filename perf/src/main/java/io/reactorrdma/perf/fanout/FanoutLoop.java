package io.reactorrdma.perf.fanout;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.perf.cli.PerfException;
import io.rsocket.Payload;
import io.rsocket.util.ByteBufPayload;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code callers} closed loops of fan-outs: each caller draws every shard's sub-request size from
 * the {@link SizeMix}, sends the fan-out, checks and releases the answers when all are in, and
 * sends its next one. Sub-requests are slices of one template filled once (from the transport's
 * allocator: registered memory for RDMA). Fan-outs that start and end in the measured phase are
 * counted and their whole time (first send to last answer) recorded.
 */
final class FanoutLoop {

    private static final int WARMUP = 0;
    private static final int MEASURE = 1;
    private static final int STOP = 2;

    private final ShardFanOut fan;
    private final ByteBuf template;
    /** Longer fan-outs are recorded as this long. */
    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final Recorder recorder = new Recorder(HIGHEST_NANOS, 3);
    private final AtomicLong fanOuts = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile int phase = WARMUP;
    private CountDownLatch idle;

    /** {@code template} holds at least {@link SizeMix#max()} readable bytes; the caller keeps and releases it. */
    FanoutLoop(ShardFanOut fan, ByteBuf template) {
        if (template.readableBytes() < SizeMix.max()) {
            throw new IllegalArgumentException("the template holds " + template.readableBytes() + " bytes; the mix needs " + SizeMix.max());
        }
        this.fan = fan;
        this.template = template;
    }

    /**
     * Sends {@code rounds} fan-outs of the smallest size one after the other, each waited for up to
     * {@code timeout}: with round robin over a shard's replicas, {@code replicas} rounds connect every
     * replica, so that connecting is done before the warm-up starts.
     */
    void prime(int rounds, Duration timeout) {
        for (int i = 0; i < rounds; i++) {
            List<Payload> answers;
            try {
                answers = fan.fanOut(shard -> ByteBufPayload.create(template.retainedSlice(template.readerIndex(), SizeMix.SIZES[0])))
                        .block(timeout);
            } catch (RuntimeException e) {
                throw new PerfException("the first fan-outs (which connect to every replica) failed: " + e, e);
            }
            if (answers == null) {
                throw new PerfException("the first fan-outs completed without answers");
            }
            int[] sizes = new int[fan.shards()];
            Arrays.fill(sizes, SizeMix.SIZES[0]);
            try {
                check(answers, sizes);
            } finally {
                answers.forEach(Payload::release);
            }
        }
    }

    /** Starts {@code callers} loops, in warm-up; caller {@code i} draws its sizes from {@code seed + i}. */
    void start(int callers, long seed) {
        idle = new CountDownLatch(callers);
        for (int i = 0; i < callers; i++) {
            next(new SplittableRandom(seed + i));
        }
    }

    private void next(SplittableRandom random) {
        if (phase == STOP) {
            idle.countDown();
            return;
        }
        int[] sizes = new int[fan.shards()];
        long total = 0;
        for (int s = 0; s < sizes.length; s++) {
            sizes[s] = SizeMix.draw(random);
            total += sizes[s];
        }
        long sum = total;
        boolean measured = phase == MEASURE;
        long start = System.nanoTime();
        fan.fanOut(shard -> ByteBufPayload.create(template.retainedSlice(template.readerIndex(), sizes[shard])))
                .subscribe(answers -> {
                    long nanos = System.nanoTime() - start;
                    try {
                        check(answers, sizes);
                    } catch (PerfException e) {
                        fail(e);
                        return;
                    } finally {
                        answers.forEach(Payload::release);
                    }
                    if (measured && phase == MEASURE) {
                        recorder.recordValue(Math.min(nanos, HIGHEST_NANOS));
                        fanOuts.incrementAndGet();
                        bytes.addAndGet(sum);
                    }
                    next(random);
                }, this::fail);
    }

    private void check(List<Payload> answers, int[] sizes) {
        if (answers.size() != sizes.length) {
            throw new PerfException("a fan-out to " + sizes.length + " shards completed with " + answers.size() + " answers");
        }
        for (int s = 0; s < sizes.length; s++) {
            ByteBuf data = answers.get(s).sliceData();
            int n = data.readableBytes();
            if (n != sizes[s] || data.getLong(data.readerIndex() + n - 8) != template.getLong(template.readerIndex() + n - 8)
                    || data.getLong(data.readerIndex()) != template.getLong(template.readerIndex())) {
                throw new PerfException("shard " + s + " answered " + n + " bytes that are not the " + sizes[s] + " it was sent");
            }
        }
    }

    private void fail(Throwable error) {
        failure.compareAndSet(null, error);
        phase = STOP;
        idle.countDown();
    }

    /** Ends the warm-up: from now on fan-outs are counted. */
    void measure() {
        recorder.reset();
        phase = MEASURE;
    }

    /** Ends the measured phase: from now on no fan-out is counted and no caller sends another. */
    void end() {
        phase = STOP;
    }

    /** Returns when every caller's last fan-out is in; throws what failed, if anything did. */
    void awaitIdle(long timeoutNanos) {
        try {
            if (!idle.await(timeoutNanos, TimeUnit.NANOSECONDS)) {
                throw new PerfException("fan-outs were still in flight " + TimeUnit.NANOSECONDS.toSeconds(timeoutNanos)
                        + " s after the run (a shard stopped answering)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PerfException("interrupted while waiting for the last fan-outs", e);
        }
        Throwable t = failure.get();
        if (t != null) {
            throw t instanceof PerfException ? (PerfException) t : new PerfException("a fan-out failed: " + t, t);
        }
    }

    /** The measured fan-outs' times, in nanoseconds. */
    Histogram latencies() {
        return recorder.getIntervalHistogram();
    }

    long fanOuts() {
        return fanOuts.get();
    }

    /** The sub-requests' payload bytes of the measured fan-outs (each crossed once each way). */
    long bytes() {
        return bytes.get();
    }
}
