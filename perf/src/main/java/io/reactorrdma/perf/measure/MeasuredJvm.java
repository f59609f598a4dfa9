package io.reactorrdma.perf.measure;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import io.reactorrdma.perf.cli.Log;
import io.reactorrdma.tools.launch.ChildJvm;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The JVM options every measuring JVM of the perf tool runs with (this tool's own, its forked peers), and the
 * relaunch of the tool into them.
 *
 * <p>Why: a JVM touches a page of its heap for the first time when its young generation first grows over it, and
 * each first touch is a page fault taken by the allocating thread (microseconds under a hypervisor). At the
 * allocation rates of these scenarios a default heap takes tens of seconds to be touched once, so a run of a few
 * seconds measured those faults in its tail — every thread of it, the transports' I/O threads included. A service
 * that has run for minutes has touched its heap. {@code -XX:+AlwaysPreTouch} touches it at start, and
 * {@code -Xms256m} bounds what that touches (the default initial heap is a 64th of the host's memory).
 *
 * <p>The tool's own JVM is started by its user ({@code java -jar}), so for a scenario run it starts itself again
 * with these options in front of the user's own ({@link #relaunch}), unless the user set {@code AlwaysPreTouch}
 * on the command line either way — {@code -XX:-AlwaysPreTouch} runs the scenarios in the JVM as started, and its
 * peers without these options ({@link #peerOptions}) — or gave it an option a child must not take again (an agent,
 * a flight recording, a log file, a JMX port: {@link #keptOption}).
 */
public final class MeasuredJvm {

    /** The options, in front of any the user gave (which win where they overlap). */
    public static final List<String> OPTIONS = List.of("-Xms256m", "-XX:+AlwaysPreTouch");

    private static final String PRE_TOUCH = "AlwaysPreTouch";
    private static final List<String> HEAP_SIZE_OPTIONS = List.of("-Xms", "-Xmx", "-XX:InitialHeapSize=", "-XX:MaxHeapSize=",
            "-XX:MinHeapSize=");

    private MeasuredJvm() {
    }

    /**
     * Whether this JVM should start itself again to run {@code args}: a scenario, nobody chose pre-touching, and
     * nothing on the command line that the JVM holds on to (an agent, a recording, a log file, a JMX port: a child
     * would take them again), which keeps the run in this JVM and says so.
     */
    public static boolean shouldRelaunch(String[] args) {
        if (args.length == 0 || Arrays.stream(args).anyMatch(a -> a.equals("-h") || a.equals("--help") || a.equals("-V")
                || a.equals("--version"))) {
            return false;
        }
        VMOption preTouch = preTouchOption();
        if (preTouch == null || preTouch.getOrigin() != VMOption.Origin.DEFAULT) {
            return false; // not HotSpot, or the user chose
        }
        String kept = keptOption(ownOptions(ManagementFactory.getRuntimeMXBean().getInputArguments(), environmentOptions()));
        if (kept != null) {
            Log.info(kept + " stays with this JVM, so the scenario runs here, its heap not touched at start (add "
                    + String.join(" ", OPTIONS) + " to measure as the tool does otherwise)");
            return false;
        }
        return true;
    }

    /**
     * The first of {@code own} (the command line's JVM options) that a child must not be given again, or null: only
     * system properties (not JMX's) and heap and stack sizes go to a child.
     */
    static String keptOption(List<String> own) {
        for (String o : own) {
            boolean plain = (o.startsWith("-D") && !o.startsWith("-Dcom.sun.management")) || o.startsWith("-Xss") || sizesHeap(o);
            if (!plain) {
                return o;
            }
        }
        return null;
    }

    /**
     * This JVM's command-line options: {@code inputArguments} without what the environment put there, which a
     * child inherits anyway ({@code JAVA_TOOL_OPTIONS} and {@code JDK_JAVA_OPTIONS} in front, {@code _JAVA_OPTIONS}
     * behind; {@code environment} as {@link #environmentOptions()} gives them). Where they do not match as written
     * (quoting, argument files), everything is kept: {@link #keptOption} then decides.
     */
    static List<String> ownOptions(List<String> inputArguments, List<List<String>> environment) {
        List<String> front = new ArrayList<>(environment.get(0));
        front.addAll(environment.get(1));
        List<String> back = environment.get(2);
        List<String> own = inputArguments;
        if (own.size() >= front.size() && own.subList(0, front.size()).equals(front)) {
            own = own.subList(front.size(), own.size());
        }
        if (own.size() >= back.size() && own.subList(own.size() - back.size(), own.size()).equals(back)) {
            own = own.subList(0, own.size() - back.size());
        }
        return own;
    }

    /** The options of {@code JAVA_TOOL_OPTIONS}, {@code JDK_JAVA_OPTIONS} and {@code _JAVA_OPTIONS}, in that order. */
    static List<List<String>> environmentOptions() {
        return List.of(tokens(System.getenv("JAVA_TOOL_OPTIONS")), tokens(System.getenv("JDK_JAVA_OPTIONS")),
                tokens(System.getenv("_JAVA_OPTIONS")));
    }

    /** HotSpot's {@code AlwaysPreTouch}, or null on a JVM without it. */
    private static VMOption preTouchOption() {
        try {
            HotSpotDiagnosticMXBean hotSpot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            return hotSpot == null ? null : hotSpot.getVMOption(PRE_TOUCH);
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            return null;
        }
    }

    /**
     * The options a child JVM gets: {@link #OPTIONS} (without {@code -Xms} where the command line or the environment
     * sized the heap), then {@code own}, this JVM's command-line options ({@link #ownOptions}).
     */
    static List<String> childOptions(List<String> own, List<List<String>> environment) {
        boolean sized = sizesHeap(own) || environment.stream().anyMatch(MeasuredJvm::sizesHeap);
        List<String> options = new ArrayList<>();
        for (String o : OPTIONS) {
            if (!(sized && o.startsWith("-Xms"))) {
                options.add(o);
            }
        }
        options.addAll(own);
        return options;
    }

    private static boolean sizesHeap(List<String> options) {
        return options.stream().anyMatch(MeasuredJvm::sizesHeap);
    }

    private static boolean sizesHeap(String option) {
        return HEAP_SIZE_OPTIONS.stream().anyMatch(option::startsWith);
    }

    /**
     * The options of a forked peer: {@link #OPTIONS} where this JVM pre-touches its heap (relaunched, or so started),
     * none otherwise (the user's {@code -XX:-AlwaysPreTouch}, or tests running a scenario in their own JVM); without
     * {@code -Xms} where the environment, which the peer inherits, sizes the heap.
     */
    public static List<String> peerOptions() {
        VMOption preTouch = preTouchOption();
        if (preTouch == null || !Boolean.parseBoolean(preTouch.getValue())) {
            return List.of();
        }
        return childOptions(List.of(), environmentOptions());
    }

    private static List<String> tokens(String value) {
        return value == null || value.isBlank() ? List.of() : Arrays.asList(value.trim().split("\\s+"));
    }

    /**
     * Runs {@code mainClass} with {@code args} in a child JVM with {@link #OPTIONS} and this JVM's own options, its
     * input and output this JVM's; returns its exit status (1 when it cannot be started, saying why). The child is
     * killed if this JVM is stopped first.
     */
    public static int relaunch(Class<?> mainClass, String[] args) {
        List<List<String>> environment = environmentOptions();
        List<String> options = childOptions(ownOptions(ManagementFactory.getRuntimeMXBean().getInputArguments(), environment),
                environment);
        List<String> command = ChildJvm.of(mainClass, mainClass.getName()).withJvmOptions(options).command(Arrays.asList(args));
        Log.info("measuring in a JVM started again with " + String.join(" ", OPTIONS) + " (its heap touched before the runs, "
                + "not during them; -XX:-AlwaysPreTouch measures in this JVM as it is)");
        Process child;
        try {
            child = new ProcessBuilder(command).inheritIO().start();
        } catch (IOException e) {
            Log.failure("cannot start the measuring JVM " + command + " (-XX:-AlwaysPreTouch measures in this JVM as it is)", e);
            return 1;
        }
        Thread stop = new Thread(() -> stop(child), "perf-measuring-jvm-stop");
        Runtime.getRuntime().addShutdownHook(stop);
        try {
            return child.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop(child);
            return 130;
        }
    }

    private static void stop(Process child) {
        if (!child.isAlive()) {
            return;
        }
        child.destroy();
        try {
            if (!child.waitFor(10, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        } catch (InterruptedException e) {
            child.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
