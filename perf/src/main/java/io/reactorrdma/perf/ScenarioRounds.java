package io.reactorrdma.perf;

import io.netty.util.ResourceLeakDetector;
import io.reactorrdma.perf.cli.FanoutClient;
import io.reactorrdma.perf.cli.Log;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.cli.Scenario;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.measure.CoreToCore;
import io.reactorrdma.perf.report.LatencyChart;
import io.reactorrdma.perf.report.RepeatSummary;
import io.reactorrdma.perf.report.Result;
import io.reactorrdma.perf.report.ResultWriter;
import io.reactorrdma.perf.ucx.UcxPerftest;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One scenario invocation: for each {@code --poll} mode in order, {@code --repeat} rounds of the transports interleaved
 * (t1, t2, t1, t2, ...), each run printed as it finishes; then, for more than one round, each transport's medians and
 * its median per-run ratios against the baseline ({@link RepeatSummary}); then the {@code --chart} of that mode.
 */
final class ScenarioRounds {

    private ScenarioRounds() {
    }

    /** Runs {@code o} and prints to {@code out} (with {@code --csv}, a readable copy goes to standard error); returns the exit status. */
    static int run(PerfOptions o, PrintStream out) {
        return run(o, out, UcxPerftest.onPath());
    }

    /**
     * Runs {@code o}, the ucx transport on {@code ucx}; without its executable ucx is skipped with one line (how to install
     * it), the other transports run and the exit status does not change.
     */
    static int run(PerfOptions o, PrintStream out, UcxPerftest ucx) {
        List<Transport> transports = new ArrayList<>();
        for (Transport t : o.transports) {
            if (!o.scenario.appliesTo(t)) {
                Log.info(t.id() + " does not apply to " + o.scenario.id() + "; skipped");
            } else if (t == Transport.UCX && !ucx.available()) {
                Log.info(ucx.missingNote());
            } else {
                transports.add(t);
            }
        }
        List<ResultWriter> writers = new ArrayList<>(List.of(new ResultWriter(out, o.csv)));
        if (o.csv) {
            writers.add(new ResultWriter(System.err, false)); // each run's figures as they come, for whoever watches
        }
        Transport baseline = o.baseline;
        if (baseline != null && !transports.contains(baseline)) {
            // only a skipped ucx gets here: the first transport that runs takes its place, as without --baseline
            baseline = transports.isEmpty() ? null : transports.get(0);
            if (o.repeat > 1 && baseline != null) {
                Log.info(o.baseline.id() + " does not run; the ratios are against " + baseline.id() + " instead");
            }
        }
        if (o.repeat > 1 && baseline != null) {
            Log.info(o.repeat + " rounds per poll mode; ratios against " + baseline.id());
        }
        int failed = 0;
        for (PollMode poll : o.polls) {
            PerfOptions po = o.withPoll(poll);
            RepeatSummary summary = new RepeatSummary(baseline, o.repeat);
            writers.forEach(ResultWriter::header);
            for (int round = 1; round <= o.repeat; round++) {
                for (Transport t : transports) {
                    if (!runOne(po, t, ucx, round, summary, writers)) {
                        failed++;
                    }
                }
            }
            if (o.repeat > 1) {
                writers.forEach(w -> w.medians(summary, poll, o.repeat));
            }
            if (o.chart != null && !chart(po, transports, summary)) {
                failed++;
            }
        }
        return failed;
    }

    private static boolean runOne(PerfOptions o, Transport t, UcxPerftest ucx, int round, RepeatSummary summary,
                                  List<ResultWriter> writers) {
        Log.info(o.scenario.id() + " on " + t.id() + (o.repeat > 1 ? ", run " + round + " of " + o.repeat : "") + ": "
                + (o.scenario.takesSize() ? "size " + o.size + " B" : "sizes from its mix")
                + (o.scenario == Scenario.ECHO && t != Transport.UCX ? ", reply " + o.reply.id() : "")
                + ", warm-up " + o.warmupSeconds + " s, measured " + o.durationSeconds + " s, poll " + o.poll.id()
                // a sampled buffer's stack trace costs an I/O thread microseconds: it can show in p99 (docs/PERFORMANCE.md)
                + (t != Transport.UCX ? ", Netty leak detection " + ResourceLeakDetector.getLevel().name().toLowerCase(Locale.ROOT) : "")
                + "; host: " + CoreToCore.describe());
        try {
            Result r = ScenarioRunner.run(o, t, ucx);
            summary.add(t, round, r);
            writers.forEach(w -> w.row(r, o.poll, round));
            Log.info(t.id() + ": " + r.ops() + " ops" + (r.clientAllocated() < 0 ? "" // echo: the loops run on I/O threads
                    : "; the client thread allocated " + r.clientAllocated() + " bytes in the measured phase"));
            return true;
        } catch (RuntimeException | LinkageError e) {
            summary.add(t, round, null);
            Log.info(t.id() + " failed: " + describe(e));
            Log.stackTrace(t.id() + " failed", e);
            return false;
        }
    }

    /** Draws the poll mode's chart: each transport's median run (its only run without --repeat); false when it could not be written. */
    private static boolean chart(PerfOptions o, List<Transport> transports, RepeatSummary summary) {
        List<Result> results = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (Transport t : transports) {
            Result r = summary.medianRun(t);
            if (r != null) {
                results.add(r);
                names.add(o.repeat > 1 ? t.id() + ", run " + summary.roundOf(t, r) + " of " + o.repeat : t.id());
            }
        }
        String title = o.scenario.takesSize()
                ? String.format(Locale.ROOT, "%s, %d B, --poll %s, %d connection(s): round trip", o.scenario.id(), o.size,
                        o.poll.id(), o.connections)
                : String.format(Locale.ROOT, "%s, %d shards x %d replicas, size mix, --poll %s, %d caller(s), client %s%s: whole fan-out",
                        o.scenario.id(), o.shards, o.replicas, o.poll.id(), o.connections,
                        o.fanoutClient.id() + (o.fanoutClient == FanoutClient.SHARD
                                ? ", hedging " + (o.hedging ? "on after " + o.hedgeQuantileLabel() : "off") : ""),
                        o.slowReplicaMillis > 0 ? ", a replica " + o.slowReplicaMillis + " ms slow" : "");
        if (o.repeat > 1) {
            title += String.format(Locale.ROOT, " (median run of %d by p50)", o.repeat);
        }
        try {
            LatencyChart.write(chartFile(o.chart, o.poll, o.polls.size()), title, results, names);
            return true;
        } catch (PerfException e) {
            Log.info(e.getMessage());
            return false;
        }
    }

    /**
     * {@code --chart FILE.png} as given for one poll mode; with several, one file each: {@code FILE-back-off.png},
     * {@code FILE-spin.png}.
     */
    static Path chartFile(Path chart, PollMode poll, int modes) {
        if (modes == 1) {
            return chart;
        }
        String name = chart.getFileName().toString();
        String stem = name.substring(0, name.length() - ".png".length());
        return chart.resolveSibling(stem + "-" + poll.id() + name.substring(stem.length()));
    }

    private static String describe(Throwable e) {
        String m = e.getMessage();
        return m == null ? e.toString() : (e instanceof PerfException ? m : e.getClass().getSimpleName() + ": " + m);
    }
}
