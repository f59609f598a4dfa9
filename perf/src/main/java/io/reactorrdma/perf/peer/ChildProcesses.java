package io.reactorrdma.perf.peer;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Forked peers still alive; one shutdown hook kills them all if this JVM exits first. */
final class ChildProcesses {

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "perf-kill-peers"));
    }

    private ChildProcesses() {
    }

    static void add(Process p) {
        LIVE.add(p);
    }

    static void remove(Process p) {
        LIVE.remove(p);
    }
}
