package io.reactorrdma.perf.doctor;

import io.reactorrdma.perf.doctor.checks.Checks;
import io.reactorrdma.perf.doctor.checks.Finding;
import io.reactorrdma.perf.doctor.checks.Provider;
import io.reactorrdma.perf.doctor.host.Host;
import io.reactorrdma.perf.doctor.host.HostPaths;
import io.reactorrdma.perf.doctor.host.JvmFacts;

import io.reactorrdma.tools.cli.CommandLines;
import io.reactorrdma.tools.cli.ExitStatus;
import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code java -jar reactor-rdma-perf.jar doctor [--provider auto|disni|shm|ffm]}: runs every check ({@link Checks}) on
 * this host, prints the report ({@link Report}) and exits 0 when the judged provider can run, 1 when it cannot, 2 on a
 * bad command line. The hidden {@code --root DIR} reads the host's files under {@code DIR} (a fake tree in tests).
 */
@Command(name = "doctor", sortOptions = false, usageHelpWidth = 120,
        customSynopsis = {"usage: java -jar reactor-rdma-perf.jar doctor [--provider auto|disni|shm|ffm]", ""},
        description = {
                "Checks this host for the verbs providers and says what to fix, one line per check (OK, WARN, FAIL):",
                "RDMA devices and ports (state, link layer, MTU, RoCE v2 GIDs), /dev/infiniband, rdma-core's libraries,",
                "the JDK, libdisni on java.library.path, the locked-memory limit against the default pools, /dev/shm,",
                "and RoCE ToS/PFC where sysfs shows them. It reads files only; run it as the application is started",
                "(same user, limits, -Djava.library.path and -Dreactor.rdma.* options).",
                ""},
        optionListHeading = "options:%n",
        footer = {"", "exit status: 0 the judged provider can run here, 1 it cannot, 2 bad command line."})
public final class DoctorCommand implements Callable<Integer> {

    @Option(names = {"-h", "--help"}, usageHelp = true, order = 99, description = "this text")
    boolean help;

    @Option(names = "--provider", paramLabel = "auto|disni|shm|ffm", order = 1, converter = Provider.Converter.class,
            description = "the provider to judge (default auto: what reactor.rdma.provider=auto opens here)")
    Provider provider = Provider.AUTO;

    @Option(names = "--root", paramLabel = "DIR", hidden = true, description = "read the host's files under DIR (tests)")
    Path root;

    private final PrintStream out;
    private final JvmFacts jvm;

    private DoctorCommand(PrintStream out, JvmFacts jvm) {
        this.out = out;
        this.jvm = jvm;
    }

    /** {@code doctor [options]} on this host and JVM; returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return run(args, out, err, JvmFacts.current());
    }

    /** {@code doctor [options]} with the JVM's facts given (tests); returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err, JvmFacts jvm) {
        return CommandLines.of(new DoctorCommand(out, jvm), out, err).execute(args);
    }

    /** The text of {@code doctor --help}. */
    static String help() {
        PrintStream none = new PrintStream(OutputStream.nullOutputStream());
        return CommandLines.of(new DoctorCommand(none, JvmFacts.current()), none, none).getUsageMessage();
    }

    @Override
    public Integer call() {
        if (root != null && !Files.isDirectory(root)) {
            throw new UsageException("--root " + root + " is not a directory");
        }
        Host host = new Host(root == null ? HostPaths.host() : HostPaths.under(root), jvm);
        List<Finding> findings = Checks.run(host);
        Verdict verdict = Verdict.of(provider, host, findings);
        Report.print(out, verdict, findings);
        out.flush();
        return verdict.canRun() ? ExitStatus.OK : ExitStatus.FAILED;
    }
}
