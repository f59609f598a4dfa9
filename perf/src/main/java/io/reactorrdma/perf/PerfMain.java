package io.reactorrdma.perf;

import io.reactorrdma.incast.cli.IncastSimCommand;
import io.reactorrdma.perf.doctor.DoctorCommand;
import io.reactorrdma.perf.jmh.AllocatorBenchmark;
import io.reactorrdma.perf.jmh.AllocatorReport;
import io.reactorrdma.perf.measure.MeasuredJvm;
import io.reactorrdma.perf.soak.SoakRun;
import io.reactorrdma.tools.cli.ExitStatus;
import io.reactorrdma.tools.cli.UsageException;

import java.io.PrintStream;
import java.util.Arrays;

/**
 * {@code java -jar reactor-rdma-perf.jar <scenario> [options]} runs a scenario on each transport
 * asked for and prints a line per transport; {@code ... jmh <args>} runs JMH; {@code ... allocator-report
 * [--quick]} runs the {@link AllocatorBenchmark} matrix and writes its tables and charts; {@code ... soak
 * [--duration 10m]} runs the fault soak ({@link SoakRun}); {@code ... incast-sim [options]} simulates RoCE incast
 * and recommends a send window (the incast-sim module's {@link IncastSimCommand}, also {@code incast-sim.jar}); {@code ... doctor
 * [--provider auto|disni|shm|ffm]} checks this host for the providers and says what to fix ({@link DoctorCommand}); {@code ... serve
 * <scenario>} is the hand-started peer of an rdma-disni run ({@link ServeCommand}). A scenario runs in a JVM with
 * {@link MeasuredJvm#OPTIONS}: this one, started again with them unless its user chose otherwise.
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
        if (args.length > 0 && args[0].equals("doctor")) {
            System.exit(DoctorCommand.run(Arrays.copyOfRange(args, 1, args.length), System.out, System.err));
        }
        if (args.length > 0 && args[0].equals("incast-sim")) {
            System.exit(IncastSimCommand.run(Arrays.copyOfRange(args, 1, args.length), System.out, System.err));
        }
        if (args.length > 0 && args[0].equals("allocator-report")) {
            System.exit(AllocatorReport.run(Arrays.copyOfRange(args, 1, args.length)));
        }
        if (MeasuredJvm.shouldRelaunch(args)) {
            System.exit(MeasuredJvm.relaunch(PerfMain.class, args));
        }
        System.exit(run(args));
    }

    /** Runs the command line; returns the exit status. */
    static int run(String[] args) {
        return run(args, System.out);
    }

    /** Runs the command line, the results to {@code out}; returns the exit status (picocli's {@link ScenarioCommand}). */
    static int run(String[] args, PrintStream out) {
        return ScenarioCommand.commandLine(out, System.err).execute(args);
    }
}
