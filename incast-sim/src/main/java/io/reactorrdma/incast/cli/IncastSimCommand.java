package io.reactorrdma.incast.cli;

import io.reactorrdma.incast.report.IncastChart;
import io.reactorrdma.incast.report.IncastTable;
import io.reactorrdma.incast.sweep.Arm;
import io.reactorrdma.incast.sweep.ArmResult;
import io.reactorrdma.incast.sweep.Recommendation;
import io.reactorrdma.incast.sweep.Sweep;
import io.reactorrdma.tools.cli.CommandLines;
import io.reactorrdma.tools.cli.ExitStatus;
import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code java -jar incast-sim.jar [options]}: runs each arm of the sweep on the simulated fabric
 * ({@link TrainerFabric}), prints the table (or the CSV), draws the chart and prints the recommended send window last.
 */
@Command(name = "incast-sim", synopsisHeading = "", sortOptions = false, usageHelpWidth = 120,
        customSynopsis = {"usage: java -jar incast-sim.jar [options]",
                "       java -jar reactor-rdma-perf.jar incast-sim [options]", ""},
        description = {
                "incast-sim: a packet-level simulation of trainers pushing to parameter servers over RoCE, one run per arm,",
                "to choose the engine's send window (EngineConfig.sendWindowBytes) for a fabric. docs/INCAST.md explains the model.",
                "",
                "arms (each an independent, deterministic simulation of the same workload and seed):",
                "  pfc     PFC only: no DCQCN, no send window",
                "  dcqcn   DCQCN + PFC, no send window (the sweep's 'off')",
                "  window  DCQCN + PFC + a send window W per engine (QP), for each W of --window",
                ""},
        optionListHeading = "options:%n")
public final class IncastSimCommand implements Callable<Integer> {

    @Option(names = {"-h", "--help"}, usageHelp = true, order = 99, description = "this text")
    boolean help;

    @Mixin
    IncastArguments arguments = new IncastArguments();

    private final PrintStream out;
    private final PrintStream err;

    private IncastSimCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command line (the arguments after {@code incast-sim}); returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        CommandLine cl = CommandLines.of(new IncastSimCommand(out, err), out, err);
        // the footer as written (picocli would wrap the CSV header and read % as a format)
        cl.getHelpSectionMap().put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_FOOTER,
                help -> String.join(System.lineSeparator(), footer()) + System.lineSeparator());
        return cl.execute(args);
    }

    /**
     * Reads the command line into the options a run uses, without running it.
     *
     * @param maxLeafSpineHosts the hosts the leaf-spine topology holds
     * @throws UsageException saying what is wrong and what to use
     */
    static IncastOptions parse(String[] args, int maxLeafSpineHosts) {
        IncastSimCommand command = new IncastSimCommand(System.out, System.err);
        try {
            CommandLines.of(command, System.out, System.err).parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new UsageException(CommandLines.message(e));
        }
        return command.arguments.options(maxLeafSpineHosts);
    }

    @Override
    public Integer call() {
        IncastOptions o = arguments.options(TrainerFabric.maxLeafSpineHosts());
        TrainerFabric.check(o);
        List<Arm> arms = o.arms();
        err.printf(Locale.ROOT, "[incast-sim] %d trainers x %d servers, %s%s, %s, MTU %d, fragment %s, %.3f ms of pushes, seed %d: %d arms "
                        + "on %d thread(s)%n", o.trainers(), o.servers(), o.topology().id(),
                o.topology() == IncastOptions.TopologyKind.LEAF_SPINE ? " (" + o.placement().name().toLowerCase(Locale.ROOT) + ")" : "",
                o.sync() ? "sync" : "async", o.mtuBytes(), Arm.size(o.fragmentBytes()), o.durationPs() / 1e9, o.seed(),
                arms.size(), o.threads());
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

    /** What {@code --help} prints after the options: the defaults that are computed, the CSV columns, the rule, the statuses. */
    static String[] footer() {
        return new String[] {
                "",
                "default --compute: " + TrainerFabric.defaultCompute() + "; leaf-spine: " + TrainerFabric.leafSpineShape(),
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
                "exit status: 0 ran, 1 the simulation failed, 2 bad command line."};
    }
}
