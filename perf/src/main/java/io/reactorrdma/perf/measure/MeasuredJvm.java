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
 * on the command line either way: {@code -XX:-AlwaysPreTouch} runs the scenarios in the JVM as started, and its
 * peers without these options ({@link #peerOptions}).
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
     * Whether this JVM should start itself again to run {@code args}: a scenario, nobody chose pre-touching, and no
     * agent on the command line (a debugger or profiler attached to this JVM stays with the run: it says so).
     */
    public static boolean shouldRelaunch(String[] args) {
        if (args.length == 0 || Arrays.stream(args).anyMatch(a -> a.equals("-h") || a.equals("--help") || a.equals("-V")
                || a.equals("--version"))) {
            return false;
        }
        VMOption preTouch = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).getVMOption(PRE_TOUCH);
        if (preTouch.getOrigin() != VMOption.Origin.DEFAULT) {
            return false;
        }
        if (hasAgent(ManagementFactory.getRuntimeMXBean().getInputArguments())) {
            Log.info("an agent is on the command line, so the scenario runs in this JVM, its heap not touched at start "
                    + "(add -XX:+AlwaysPreTouch -Xms256m to measure as the tool does otherwise)");
            return false;
        }
        return true;
    }

    /** Whether {@code inputArguments} load an agent (a debugger's port or a profiler would be taken twice by a child). */
    static boolean hasAgent(List<String> inputArguments) {
        return inputArguments.stream().anyMatch(a -> a.startsWith("-agentlib") || a.startsWith("-agentpath") || a.startsWith("-javaagent")
                || a.startsWith("-Xrunjdwp"));
    }

    /**
     * The options a child JVM gets, given this JVM's own ({@code inputArguments}, as the JVM lists them: those of
     * {@code JAVA_TOOL_OPTIONS} and {@code JDK_JAVA_OPTIONS} first) and those two environment variables, which the
     * child inherits and so must not be given twice: {@link #OPTIONS} (without {@code -Xms} where the user sized
     * the heap), then the user's command-line options.
     */
    static List<String> childOptions(List<String> inputArguments, String javaToolOptions, String jdkJavaOptions) {
        List<String> fromEnvironment = new ArrayList<>(tokens(javaToolOptions));
        fromEnvironment.addAll(tokens(jdkJavaOptions));
        List<String> own = inputArguments.size() >= fromEnvironment.size()
                && inputArguments.subList(0, fromEnvironment.size()).equals(fromEnvironment)
                ? inputArguments.subList(fromEnvironment.size(), inputArguments.size()) : inputArguments;
        boolean userSizedHeap = inputArguments.stream().anyMatch(a -> HEAP_SIZE_OPTIONS.stream().anyMatch(a::startsWith));
        List<String> options = new ArrayList<>();
        for (String o : OPTIONS) {
            if (!(userSizedHeap && o.startsWith("-Xms"))) {
                options.add(o);
            }
        }
        options.addAll(own);
        return options;
    }

    /**
     * The options of a forked peer: {@link #OPTIONS} where this JVM pre-touches its heap (relaunched, or so started),
     * none otherwise (the user's {@code -XX:-AlwaysPreTouch}, or tests running a scenario in their own JVM).
     */
    public static List<String> peerOptions() {
        VMOption preTouch = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).getVMOption(PRE_TOUCH);
        return Boolean.parseBoolean(preTouch.getValue()) ? OPTIONS : List.of();
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
        List<String> options = childOptions(ManagementFactory.getRuntimeMXBean().getInputArguments(),
                System.getenv("JAVA_TOOL_OPTIONS"), System.getenv("JDK_JAVA_OPTIONS"));
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
