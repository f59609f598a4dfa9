package io.reactorrdma.perf.doctor;

import io.reactorrdma.perf.doctor.checks.Finding;
import io.reactorrdma.perf.doctor.checks.Fixes;
import io.reactorrdma.perf.doctor.checks.Provider;

import java.io.PrintStream;
import java.util.List;

/**
 * Prints the doctor's report: one line per finding ({@code OK}, {@code WARN} or {@code FAIL}, what was checked, what was
 * found) with the fix on the line below for a WARN or FAIL; then what each provider can do here, and the judged one.
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
            out.println("  " + pad(p.id(), 7) + provider(verdict, p));
        }
        out.println();
        out.println(judged(verdict));
    }

    /** {@code OK    devices          mlx5_0 (1 port)}. */
    public static String line(Finding f) {
        return pad(f.status().name(), 6) + pad(f.topic(), TOPIC_WIDTH) + f.found();
    }

    private static String provider(Verdict v, Provider p) {
        if (v.canRun(p)) {
            return "can run" + (p == Provider.DISNI ? ": " + DISNI_START : p == Provider.FFM ? ": " + FFM_START : "");
        }
        return "cannot run: fix " + String.join(", ", v.blockers().get(p)) + " (FAIL above)";
    }

    private static String judged(Verdict v) {
        String status = v.canRun() ? "can run (exit 0)" : "cannot run (exit 1)";
        if (v.judged() == Provider.AUTO) {
            String then = v.canRun() ? ""
                    : "; fix the FAIL lines above, or run the soft provider on purpose: " + Fixes.USE_SHM;
            return "auto opens " + v.chosen().id() + " here (" + v.why() + "): " + v.chosen().id() + " " + status + then;
        }
        return v.judged().id() + " " + status + (v.canRun() ? "; select it with reactor.rdma.provider=" + v.judged().id()
                + (v.judged() == Provider.SHM ? " (auto picks it where no RDMA hardware is set up)" : " (or auto)")
                : ": fix the FAIL lines above");
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s + " " : s + " ".repeat(width - s.length());
    }
}
