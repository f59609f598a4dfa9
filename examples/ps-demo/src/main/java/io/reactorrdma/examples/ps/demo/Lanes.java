package io.reactorrdma.examples.ps.demo;

import io.reactorrdma.examples.ps.demo.measure.Timeline;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * A closed-loop workload: {@code lanes} loops each running one unit (a user request, a trainer step)
 * after the other until the time is up, so that {@code lanes} units are outstanding at every moment.
 * Units get numbers 0, 1, 2, ... in the order they start (the same numbers, so the same seeds, in
 * every arm). A failed unit is counted and its lane goes on. Each unit's continuation leaves the
 * thread that completed it (an I/O thread) for Reactor's parallel scheduler.
 */
final class Lanes {

    /** Units longer than this are recorded as this long: 60 s. */
    static final long MAX_RECORDED_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** Time the last units may take after the end, on top of the duration: 60 s. */
    static final Duration DEFAULT_GRACE = Duration.ofSeconds(60);

    /** One unit of work: lane {@code lane}, unit number {@code n}. */
    @FunctionalInterface
    interface Unit {
        Mono<?> start(int lane, long n);
    }

    /**
     * What a run counted.
     *
     * @param answered  units that completed
     * @param failed    units that failed
     * @param seconds   wall time from the start to the last unit's end
     * @param latency   each completed unit's time, ns
     * @param lastError the last failure, null when none
     */
    record Outcome(long answered, long failed, double seconds, Histogram latency, Throwable lastError) {
    }

    private Lanes() {
    }

    /** Runs {@code lanes} lanes of {@code unit} for {@code duration}; {@code timeline} (nullable) sees every unit's end. */
    static Outcome run(int lanes, Duration duration, Unit unit, Timeline timeline) {
        long end = System.nanoTime() + duration.toNanos();
        return run(lanes, () -> System.nanoTime() - end < 0, duration, unit, timeline);
    }

    /**
     * Runs {@code lanes} lanes of {@code unit} while {@code more} says so (asked after each unit);
     * fails when they have not all ended {@link #DEFAULT_GRACE} after {@code expected}.
     */
    static Outcome run(int lanes, BooleanSupplier more, Duration expected, Unit unit, Timeline timeline) {
        AtomicLong numbers = new AtomicLong();
        AtomicLong answered = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicReference<Throwable> lastError = new AtomicReference<>();
        Histogram latency = new ConcurrentHistogram(MAX_RECORDED_NANOS, 3);
        long start = System.nanoTime();
        Flux.range(0, lanes)
                .flatMap(lane -> Mono.defer(() -> {
                    long t0 = System.nanoTime();
                    return unit.start(lane, numbers.getAndIncrement())
                            .then(Mono.fromRunnable(() -> {
                                long nanos = System.nanoTime() - t0;
                                latency.recordValue(Math.min(nanos, MAX_RECORDED_NANOS));
                                answered.incrementAndGet();
                                if (timeline != null) {
                                    timeline.answered(nanos);
                                }
                            }))
                            .onErrorResume(e -> {
                                failed.incrementAndGet();
                                lastError.set(e);
                                if (timeline != null) {
                                    timeline.failed();
                                }
                                return Mono.empty();
                            })
                            .publishOn(Schedulers.parallel());
                }).repeat(more), lanes)
                .then()
                .block(expected.plus(DEFAULT_GRACE));
        return new Outcome(answered.get(), failed.get(), (System.nanoTime() - start) / 1e9, latency, lastError.get());
    }
}
