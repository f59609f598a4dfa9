package io.reactorrdma.perf.peer;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Child processes still alive (forked peers, ucx_perftest); one shutdown hook kills them all if this JVM exits first. */
public final class ChildProcesses {

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "perf-kill-peers"));
    }

    private ChildProcesses() {
    }

    public static void add(Process p) {
        LIVE.add(p);
    }

    public static void remove(Process p) {
        LIVE.remove(p);
    }
}
