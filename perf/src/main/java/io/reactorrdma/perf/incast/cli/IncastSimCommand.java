package io.reactorrdma.perf.incast.cli;

import io.reactorrdma.perf.cli.ExitStatus;
import io.reactorrdma.perf.cli.UsageException;
import io.reactorrdma.perf.incast.report.IncastChart;
import io.reactorrdma.perf.incast.report.IncastTable;
import io.reactorrdma.perf.incast.sweep.Arm;
import io.reactorrdma.perf.incast.sweep.ArmResult;
import io.reactorrdma.perf.incast.sweep.Recommendation;
import io.reactorrdma.perf.incast.sweep.Sweep;

import java.io.IOException;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@code java -jar reactor-rdma-perf.jar incast-sim [options]}: runs each arm of the sweep on the simulated fabric
 * ({@link TrainerFabric}), prints the table (or the CSV), draws the chart and prints the recommended send window last.
 */
public final class IncastSimCommand {

    private IncastSimCommand() {
    }

    /** Runs the command line (the arguments after {@code incast-sim}); returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
            out.println(usage());
            return ExitStatus.OK;
        }
        IncastOptions parsed;
        try {
            parsed = IncastOptions.parse(args, TrainerFabric.maxLeafSpineHosts());
            TrainerFabric.check(parsed);
        } catch (UsageException e) {
            err.println("error: " + e.getMessage());
            return ExitStatus.USAGE;
        }
        final IncastOptions o = parsed;
        List<Arm> arms = o.arms();
        err.printf(Locale.ROOT, "[incast-sim] %d trainers x %d servers, %s%s, %s, MTU %d, fragment %s, %.3f ms of pushes, seed %d: %d arms "
                        + "on %d thread(s)%n", o.trainers(), o.servers(), o.topology().id(),
                o.topology() == IncastOptions.TopologyKind.LEAF_SPINE ? " (" + o.placement().name().toLowerCase(Locale.ROOT) + ")" : "",
                o.sync() ? "sync" : "async", o.mtuBytes(), Arm.size(o.fragmentBytes()), o.durationPs() / 1e9, o.seed(), arms.size(), o.threads());
        List<ArmResult> results;
        try {
            results = new Sweep(arm -> TrainerFabric.build(o, arm), o.durationPs(), o.threads(),
                    r -> err.printf(Locale.ROOT, "[incast-sim] %-14s %8d pushes, p99 %.1f us, %.1f s wall, %.1f M events/s%n",
                            r.arm().label(), r.pushes(), r.p99Us(), r.wallNanos() / 1e9, r.eventsPerSecond() / 1e6))
                    .run(arms);
        } catch (IllegalStateException | IllegalArgumentException e) {
            err.println("error: the simulation failed: " + e.getMessage());
            return ExitStatus.FAILED;
        }
        if (o.csv()) {
            IncastTable.csv(out, results);
            IncastTable.table(err, results);
        } else {
            IncastTable.table(out, results);
        }
        if (o.chart() != null) {
            try {
                IncastChart.write(o.chart(), String.format(Locale.ROOT, "incast-sim: %d trainers x %d servers, %s, %s, seed %d",
                        o.trainers(), o.servers(), o.topology().id(), o.sync() ? "sync" : "async", o.seed()), results);
                err.println("[incast-sim] chart written to " + o.chart());
            } catch (IOException e) {
                err.println("error: cannot write the chart " + o.chart() + ": " + e.getMessage());
                return ExitStatus.FAILED;
            }
        }
        if (o.csv()) {
            out.flush();
        }
        return ExitStatus.OK;
    }

    /** The text of {@code incast-sim --help}. */
    public static String usage() {
        return String.join(System.lineSeparator(),
                "incast-sim: a packet-level simulation of trainers pushing to parameter servers over RoCE, one run per arm,",
                "to choose the engine's send window (EngineConfig.sendWindowBytes) for a fabric. docs/INCAST.md explains the model.",
                "",
                "usage: java -jar reactor-rdma-perf.jar incast-sim [options]",
                "",
                "arms (each an independent, deterministic simulation of the same workload and seed):",
                "  pfc     PFC only: no DCQCN, no send window",
                "  dcqcn   DCQCN + PFC, no send window (the sweep's 'off')",
                "  window  DCQCN + PFC + a send window W per engine (QP), for each W of --window",
                "",
                "options:",
                "  --trainers N        trainer hosts, default " + IncastOptions.DEFAULT_TRAINERS,
                "  --servers N         parameter-server hosts, default " + IncastOptions.DEFAULT_SERVERS
                        + "; every trainer pushes to every server",
                "  --window LIST       the sweep: comma list of sizes (binary suffixes: 64k = 65536, 1m) and/or off;",
                "                      default 8k,16k,32k,64k,128k,256k,512k,1m,off",
                "  --arms LIST         comma list of pfc, dcqcn, window; default all three",
                "  --duration TIME     simulated time during which trainers start pushes, with a unit (50ms, 500us, 0.05s);",
                "                      default 50ms. What was posted then drains, and counts.",
                "  --iterations N      iterations per trainer at most, default no limit but --duration; give it (with a long",
                "                      enough --duration) for equal work in every arm",
                "  --compute TIME      how long a trainer computes before each round of pushes, default "
                        + TrainerFabric.defaultCompute(),
                "  --seed N            the random seed (push sizes, ECN marking), default " + IncastOptions.DEFAULT_SEED
                        + "; one seed, one output",
                "  --mtu BYTES         RoCE MTU: 256, 512, 1024 (default), 2048, 4096",
                "  --fragment BYTES    the engines' fragment size, default the engine's (EngineConfig.DEFAULT_FRAGMENT_SIZE, "
                        + Arm.size(io.reactorrdma.perf.incast.SenderConfig.DEFAULT_FRAGMENT_BYTES) + "); at least 4k.",
                "                      A push of one fragment goes even past a smaller window (ByteWindow grants a lone",
                "                      request), so with the paper's pushes (p99 50 KB) a window acts only with smaller fragments",
                "  --topology T        leaf-spine (default: " + TrainerFabric.leafSpineShape() + ") or one-switch",
                "                      (every host on one switch)",
                "  --placement P       leaf-spine: spread (default; the servers spread over the ToRs) or clustered (they",
                "                      fill the first ToRs)",
                "  --sync | --async    synchronous trainers (default: the next iteration starts when every trainer's pushes",
                "                      completed) or asynchronous (each trainer goes on when its own pushes completed)",
                "  --threads N         arms run at once, default " + Sweep.DEFAULT_THREADS + " (each arm's figures are the same either way)",
                "  --chart FILE.png    draw p99 push latency and PFC pause time against W (PFC-only and DCQCN arms as",
                "                      reference lines)",
                "  --csv               standard output holds only CSV, one row per arm; the table goes to standard error",
                "  --help, -h          this text",
                "",
                "CSV columns: " + IncastTable.CSV_HEADER,
                "  push latency (us): from the application's post to the ACK of the push's last packet (HdrHistogram);",
                "  xoff_* and paused_us_* per tier of the paused port (nic, tor_down, tor_up, spine), paused time summed",
                "  over the tier's ports; nics_paused_share: host NICs ever paused; max_queue_bytes: the largest egress",
                "  queue of any switch port; p99_queue_bytes: the time-weighted p99 of the egress queues towards the",
                "  servers, sampled every 10 us of simulated time up to the last completion within --duration; goodput:",
                "  payload delivered to the servers / simulated",
                "  time (to the end of the drain), goodput_share of the servers' line rate; wall_s and events_per_s are",
                "  the only columns that differ between runs of one seed; recommended: 1 on the recommended arm.",
                "",
                Recommendation.RULE + ".",
                "exit status: 0 ran, 1 the simulation failed, 2 bad command line.");
    }
}
