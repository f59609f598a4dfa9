package io.reactorrdma.perf.ucx;

import io.reactorrdma.perf.cli.EchoReply;
import io.reactorrdma.perf.cli.Log;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.Scenario;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.report.ReportedLatency;
import io.reactorrdma.perf.report.Result;
import io.reactorrdma.perf.ucx.UcxPerftest.Mode;

import java.time.Duration;
import java.util.Locale;

/**
 * Runs echo (ucx_perftest's tag_lat) or rsocket-stream (its tag_bw) on the {@code ucx} transport. ucx_perftest counts
 * iterations, not seconds, so a short calibration run first measures the time of one iteration; the measured run then
 * takes the iterations that fill {@code --duration} (and {@code -w} the ones that would fill {@code --warmup}, though
 * ucx_perftest 1.13.1 ends its warm-up after 0.1 s whatever {@code -w} says). Each run, {@code --repeat}'s included,
 * calibrates afresh.
 *
 * <p>What its {@code Final:} line gives becomes the row; the rest stays empty (NaN), never estimated. echo: ops =
 * iterations (round trips), mean = 2 x its overall one-way latency, p50 = 2 x its 50th percentile, MiB/s = its
 * overall bandwidth / 2 (it counts both directions); p99 = 2 x the 99th percentile of a second measured run of the
 * same length ({@code -R 99}: it prints one percentile a run). Both percentiles are of the run's last 2048 iterations
 * only (ucx_perftest keeps no more), where the other transports' are of every measured round trip; p99.9 (two of
 * 2048) and CPU stay empty. rsocket-stream: ops = messages, MiB/s = its overall bandwidth; no latencies (like the
 * other transports), no CPU.
 */
public final class UcxRunner {

    /** The percentile of echo's second run: p99. */
    static final double TAIL_RANK = 99.0;
    /** The fewest and the most iterations of a measured run (few for large messages: a 1 GiB round trip takes a while). */
    static final long MIN_ITERATIONS = 10;
    static final long MAX_ITERATIONS = 1_000_000_000L;
    /** The calibration run: about 64 MiB of messages, 8 to 20000 iterations, a tenth of them as warm-up. */
    static final long CALIBRATION_BYTES = 64L << 20;
    static final long MIN_CALIBRATION = 8;
    static final long MAX_CALIBRATION = 20_000;
    private static final Duration CALIBRATION_TIMEOUT = Duration.ofSeconds(60);
    /** ucx_perftest 1.13.1's warm-up time limit (its warmup_time, which no option sets). */
    static final double UCX_WARMUP_LIMIT_SECONDS = 0.1;

    private UcxRunner() {
    }

    /** Runs {@code o.scenario} on ucx_perftest as the PATH finds it. */
    public static Result run(PerfOptions o) {
        return run(o, UcxPerftest.onPath());
    }

    /** Runs {@code o.scenario} (echo or rsocket-stream) on {@code ucx}. */
    public static Result run(PerfOptions o, UcxPerftest ucx) {
        Mode mode = mode(o.scenario);
        Log.info("ucx: " + UcxPerftest.EXECUTABLE + " -t " + mode.test() + ": its UCP worker busy-polls (its default wait mode); "
                + "--poll does not apply; no CPU figures");
        if (mode == Mode.TAG_LAT && o.reply == EchoReply.ECHO) {
            Log.info("ucx: tag_lat's server answers from a buffer of its own, not the one the message arrived in: the "
                    + "like-for-like echo is --reply own");
        }
        if (o.connections > 1) {
            Log.info("ucx: one client and one server process; --connections " + o.connections + " does not apply to it");
        }
        long calibration = calibrationIterations(o.size);
        UcxFinal c = ucx.run(mode, o.size, calibration, calibration / 10, CALIBRATION_TIMEOUT);
        double perIteration = secondsPerIteration(mode, c);
        long iterations = iterations(o.durationSeconds, perIteration);
        long warmup = warmupIterations(o.warmupSeconds, perIteration);
        Log.info(String.format(Locale.ROOT, "ucx: calibration, %d iterations: %.3f us per iteration; measuring %d iterations "
                + "(-w %d: it warms up for at most %.1f s)", calibration, perIteration * 1e6, iterations, warmup,
                UCX_WARMUP_LIMIT_SECONDS));
        UcxFinal f = ucx.run(mode, o.size, iterations, warmup, timeout(o));
        Log.info("ucx: " + f);
        Result r = result(o.scenario, o.size, mode, f);
        if (mode != Mode.TAG_LAT) {
            return r;
        }
        UcxFinal tail = ucx.run(mode, o.size, iterations, warmup, timeout(o), TAIL_RANK);
        Log.info("ucx: the same again for its p99 (-R " + TAIL_RANK + "): " + tail);
        return withTail(r, mode, tail);
    }

    static Mode mode(Scenario s) {
        switch (s) {
            case ECHO:
                return Mode.TAG_LAT;
            case RSOCKET_STREAM:
                return Mode.TAG_BW;
            default:
                throw new PerfException(s.id() + " does not run on " + Transport.UCX.id() + " (echo and rsocket-stream do)");
        }
    }

    /** The row of {@code f}: the columns it gives, the others NaN (see the class comment). */
    static Result result(Scenario s, int size, Mode mode, UcxFinal f) {
        if (mode == Mode.TAG_LAT) {
            // tag_lat prints ONE-WAY latency: ucx_perftest divides each ping-pong iteration (a round trip) by 2
            // (mode.factor()). The other transports' latency columns are round trips, so both figures are doubled back.
            double roundTrip = mode.factor();
            ReportedLatency latency = new ReportedLatency(f.overallUs() * roundTrip * 1e3, f.percentileRank(),
                    f.percentileUs() * roundTrip * 1e3);
            // its bandwidth counts both directions' bytes (x 2); echo's MiB/s counts each echo's size once
            return new Result(s, Transport.UCX, size, f.iterations(), null, f.bandwidthOverall() / mode.factor(),
                    Double.NaN, Double.NaN, -1, latency);
        }
        return new Result(s, Transport.UCX, size, f.iterations(), null, f.bandwidthOverall() / mode.factor(), Double.NaN, Double.NaN, -1);
    }

    /** {@code r} with the percentile of {@code tail}, a second tag_lat run, as a round trip (see the class comment). */
    static Result withTail(Result r, Mode mode, UcxFinal tail) {
        return r.withReported(r.reported().with(tail.percentileRank(), tail.percentileUs() * mode.factor() * 1e3));
    }

    /** How long one iteration took: a round trip for tag_lat (2 x its one-way overall latency), a message for tag_bw. */
    static double secondsPerIteration(Mode mode, UcxFinal f) {
        return f.overallUs() * mode.factor() / 1e6;
    }

    /** The calibration's iterations for {@code size}-byte messages. */
    static long calibrationIterations(int size) {
        return clamp(CALIBRATION_BYTES / size, MIN_CALIBRATION, MAX_CALIBRATION);
    }

    /** The iterations that fill {@code seconds} at {@code perIteration} seconds each, {@link #MIN_ITERATIONS}..{@link #MAX_ITERATIONS}. */
    static long iterations(double seconds, double perIteration) {
        return clamp(fill(seconds, perIteration), MIN_ITERATIONS, MAX_ITERATIONS);
    }

    /** {@code -w}: the iterations that would fill {@code seconds} of warm-up, 0 for none. */
    static long warmupIterations(double seconds, double perIteration) {
        return seconds <= 0 ? 0 : clamp(fill(seconds, perIteration), 1, MAX_ITERATIONS);
    }

    private static long fill(double seconds, double perIteration) {
        // a calibration whose figure rounded to 0.000 us: as fast as the 3 decimals printed can say
        double each = Math.max(perIteration, 0.0005e-6);
        double n = Math.ceil(seconds / each);
        return n >= MAX_ITERATIONS ? MAX_ITERATIONS : (long) n;
    }

    private static long clamp(long v, long min, long max) {
        return Math.max(min, Math.min(max, v));
    }

    /** The measured run's limit: generous, as a loaded host may run it several times slower than calibrated. */
    static Duration timeout(PerfOptions o) {
        return Duration.ofMillis((long) Math.ceil(1e3 * (60 + 5 * (o.durationSeconds + o.warmupSeconds))));
    }
}
