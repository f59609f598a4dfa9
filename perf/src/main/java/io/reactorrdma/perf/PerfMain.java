package io.reactorrdma.perf;

import io.reactorrdma.perf.cli.ExitStatus;
import io.reactorrdma.perf.cli.FanoutClient;
import io.reactorrdma.perf.cli.Log;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.cli.UsageException;
import io.reactorrdma.perf.jmh.AllocatorBenchmark;
import io.reactorrdma.perf.jmh.AllocatorReport;
import io.reactorrdma.perf.report.LatencyChart;
import io.reactorrdma.perf.report.Result;
import io.reactorrdma.perf.report.ResultWriter;
import io.reactorrdma.perf.soak.SoakRun;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@code java -jar reactor-rdma-perf.jar <scenario> [options]} runs a scenario on each transport
 * asked for and prints a line per transport; {@code ... jmh <args>} runs JMH; {@code ... allocator-report
 * [--quick]} runs the {@link AllocatorBenchmark} matrix and writes its tables and charts; {@code ... soak
 * [--duration 10m]} runs the fault soak ({@link SoakRun}); {@code ... serve
 * <scenario>} is the hand-started peer of an rdma-disni run ({@link ServeCommand}).
 */
public final class PerfMain {

    private PerfMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("jmh")) {
            org.openjdk.jmh.Main.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("serve")) {
            String[] peerArgs;
            try {
                peerArgs = ServeCommand.peerArgs(Arrays.copyOfRange(args, 1, args.length));
            } catch (UsageException e) {
                System.err.println("error: " + e.getMessage());
                System.exit(ExitStatus.USAGE);
                return;
            }
            PeerMain.main(peerArgs);
            return;
        }
        if (args.length > 0 && args[0].equals("soak")) {
            System.exit(SoakRun.main(Arrays.copyOfRange(args, 1, args.length), System.out));
        }
        if (args.length > 0 && args[0].equals("allocator-report")) {
            System.exit(AllocatorReport.run(Arrays.copyOfRange(args, 1, args.length)));
        }
        System.exit(run(args));
    }

    /** Runs the command line; returns the exit status. */
    static int run(String[] args) {
        if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
            System.out.println(Usage.text());
            return ExitStatus.OK;
        }
        PerfOptions o;
        try {
            o = PerfOptions.parse(args);
            if (o.transports.stream().noneMatch(o.scenario::appliesTo)) {
                throw new UsageException("none of the transports given applies to " + o.scenario.id() + "; it runs on "
                        + o.scenario.transports().stream().map(Transport::id).reduce((a, b) -> a + ", " + b).orElse(""));
            }
        } catch (UsageException e) {
            System.err.println("error: " + e.getMessage());
            return ExitStatus.USAGE;
        }
        return runScenario(o);
    }

    private static int runScenario(PerfOptions o) {
        ResultWriter writer = new ResultWriter(System.out, o.csv);
        int failed = 0;
        boolean headerDone = false;
        List<Result> results = new ArrayList<>();
        for (Transport t : o.transports) {
            if (!o.scenario.appliesTo(t)) {
                Log.info(t.id() + " does not apply to " + o.scenario.id() + "; skipped");
                continue;
            }
            if (!headerDone) {
                writer.header();
                headerDone = true;
            }
            Log.info(o.scenario.id() + " on " + t.id() + ": " + (o.scenario.takesSize() ? "size " + o.size + " B" : "sizes from its mix")
                    + ", warm-up " + o.warmupSeconds + " s, measured "
                    + o.durationSeconds + " s, poll " + o.poll.id());
            try {
                Result r = ScenarioRunner.run(o, t);
                writer.row(r);
                results.add(r);
                Log.info(t.id() + ": " + r.ops() + " ops" + (r.clientAllocated() < 0 ? "" // echo: the loops run on I/O threads
                        : "; the client thread allocated " + r.clientAllocated() + " bytes in the measured phase"));
            } catch (RuntimeException | LinkageError e) {
                failed++;
                Log.info(t.id() + " failed: " + describe(e));
                if (Boolean.getBoolean("perf.debug")) {
                    e.printStackTrace();
                }
            }
        }
        if (o.chart != null) {
            try {
                String title = o.scenario.takesSize()
                        ? String.format(Locale.ROOT, "%s, %d B, --poll %s, %d connection(s): round trip", o.scenario.id(), o.size,
                                o.poll.id(), o.connections)
                        : String.format(Locale.ROOT, "%s, %d shards x %d replicas, size mix, --poll %s, %d caller(s), client %s%s: whole fan-out",
                                o.scenario.id(), o.shards, o.replicas, o.poll.id(), o.connections,
                                o.fanoutClient.id() + (o.fanoutClient == FanoutClient.SHARD ? ", hedging " + (o.hedging ? "on after " + o.hedgeQuantileLabel() : "off") : ""),
                                o.slowReplicaMillis > 0 ? ", a replica " + o.slowReplicaMillis + " ms slow" : "");
                LatencyChart.write(o.chart, title, results);
            } catch (PerfException e) {
                failed++;
                Log.info(e.getMessage());
            }
        }
        return failed == 0 ? ExitStatus.OK : ExitStatus.FAILED;
    }

    private static String describe(Throwable e) {
        String m = e.getMessage();
        return m == null ? e.toString() : (e instanceof PerfException ? m : e.getClass().getSimpleName() + ": " + m);
    }
}
