package io.reactorrdma.perf.doctor;

import io.reactorrdma.perf.doctor.checks.Finding;
import io.reactorrdma.perf.doctor.checks.Fixes;
import io.reactorrdma.perf.doctor.checks.Provider;
import io.reactorrdma.perf.doctor.checks.Status;

import java.io.PrintStream;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Prints the doctor's report: one line per finding ({@code OK}, {@code WARN} or {@code FAIL}, what was checked, what was
 * found) with the fix on the line below for a WARN or FAIL; then what each provider can do here, naming the lines that
 * block it (FAIL lines, and a WARN that blocks one provider, as a JDK below 22 does ffm), and the judged one.
 */
public final class Report {

    private static final int TOPIC_WIDTH = 17;
    private static final String INDENT = " ".repeat(6 + TOPIC_WIDTH);
    private static final String DISNI_START = "start the JVM with --add-exports java.base/sun.nio.ch=ALL-UNNAMED and"
            + " -Djava.library.path=<libdisni's directory>, org.slf4j:slf4j-api on the class path";
    private static final String FFM_START = "put reactor-rdma-verbs-ffm on the class path and start the JVM with"
            + " --enable-native-access=ALL-UNNAMED";

    private Report() {
    }

    public static void print(PrintStream out, Verdict verdict, List<Finding> findings) {
        out.println("reactor-rdma doctor: checks this host for the verbs providers (judging --provider " + verdict.judged().id() + ")");
        out.println();
        for (Finding f : findings) {
            out.println(line(f));
            if (f.fix() != null) {
                out.println(INDENT + "fix: " + f.fix());
            }
        }
        out.println();
        out.println("providers:");
        for (Provider p : List.of(Provider.SHM, Provider.DISNI, Provider.FFM)) {
            out.println("  " + pad(p.id(), 7) + provider(verdict, p, findings));
        }
        out.println();
        out.println(judged(verdict));
    }

    /** {@code OK    devices          mlx5_0 (1 port)}. */
    public static String line(Finding f) {
        return pad(f.status().name(), 6) + pad(f.topic(), TOPIC_WIDTH) + f.found();
    }

    private static String provider(Verdict v, Provider p, List<Finding> findings) {
        if (v.canRun(p)) {
            return "can run" + (p == Provider.DISNI ? ": " + DISNI_START : p == Provider.FFM ? ": " + FFM_START : "");
        }
        Set<Status> statuses = EnumSet.noneOf(Status.class);
        for (Finding f : findings) {
            if (f.blocks().contains(p)) {
                statuses.add(f.status());
            }
        }
        String which = statuses.stream().sorted(Comparator.reverseOrder()).map(Status::name).collect(Collectors.joining(" and "));
        return "cannot run: fix " + blockers(v, p) + " (" + which + " above)";
    }

    private static String judged(Verdict v) {
        String status = v.canRun() ? "can run (exit 0)" : "cannot run (exit 1)";
        if (v.judged() == Provider.AUTO) {
            String then = v.canRun() ? ""
                    : "; fix " + blockers(v, v.chosen()) + " above, or run the soft provider on purpose: " + Fixes.USE_SHM;
            return "auto opens " + v.chosen().id() + " here (" + v.why() + "): " + v.chosen().id() + " " + status + then;
        }
        return v.judged().id() + " " + status + (v.canRun() ? "; select it with reactor.rdma.provider=" + v.judged().id()
                + (v.judged() == Provider.SHM ? " (auto picks it where no RDMA hardware is set up)" : " (or auto)")
                : ": fix " + blockers(v, v.judged()) + " above");
    }

    private static String blockers(Verdict v, Provider p) {
        return String.join(", ", v.blockers().get(p));
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s + " " : s + " ".repeat(width - s.length());
    }
}
