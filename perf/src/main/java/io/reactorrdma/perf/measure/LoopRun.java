package io.reactorrdma.perf.measure;

import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.report.Result;

import java.util.function.Supplier;

/**
 * The phases of a closed-loop run, shared by echo and the RSocket scenarios: start every loop,
 * wait for each one's first answer, warm up, then the measured phase between two marks of both
 * sides' CPU (and engine meters), then the stop.
 */
public final class LoopRun {

    /** How long the loops may take to get their last answer after the run ends. */
    private static final long STOP_TIMEOUT_MILLIS = 30_000;
    /** How long the first answer of every connection may take (class loading and a cold JIT on a busy machine). */
    private static final long FIRST_ECHO_TIMEOUT_MILLIS = 30_000;

    private LoopRun() {
    }

    /**
     * Runs {@code loops} against {@code peer}; {@code meters} is null for a transport without an
     * RDMA engine; {@code withLatency}: whether the loops record round trips (a stream records none).
     */
    public static Outcome measure(PerfOptions o, Transport t, EchoLoops loops, PeerSide peer, CpuMeter cpu,
                           Supplier<EngineMeters> meters, boolean withLatency) {
        loops.startAll();
        loops.awaitFirstEchoes(FIRST_ECHO_TIMEOUT_MILLIS);
        loops.runFor(o.warmupNanos());
        peer.markCpu();
        EngineMeters meters0 = meters == null ? EngineMeters.NONE : meters.get();
        long cpu0 = cpu.nanos();
        long start = System.nanoTime();
        loops.measure();
        loops.runFor(o.durationNanos());
        loops.stop();
        long elapsed = System.nanoTime() - start;
        long cpu1 = cpu.nanos();
        EngineMeters meters1 = meters == null ? EngineMeters.NONE : meters.get();
        peer.markCpu();
        loops.awaitStopped(STOP_TIMEOUT_MILLIS);
        long ops = loops.measured();
        if (ops == 0) {
            throw new PerfException("nothing came back in the measured phase of " + o.durationSeconds + " s; the transport stalled");
        }
        long peerCpu = peer.cpuNanosBetweenMarks();
        Result r = new Result(o.scenario, t, o.size, ops, withLatency ? loops.latencies() : null,
                Result.mibPerSecond(ops, o.size, elapsed), Result.usPerOp(CpuMeter.delta(cpu0, cpu1), ops),
                Result.usPerOp(peerCpu, ops), -1);
        return meters == null ? new Outcome(r, EngineMeters.NONE, EngineMeters.NONE)
                : new Outcome(r, meters1.minus(meters0), peer.metersBetweenMarks());
    }
}
