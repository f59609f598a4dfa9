package io.reactorrdma.perf.soak;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;

/** Non-daemon threads: those a run started and left behind keep a JVM alive after its work is done. */
final class SoakThreads {

    private SoakThreads() {
    }

    static Set<Thread> nonDaemon() {
        Set<Thread> s = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (!t.isDaemon() && t.isAlive()) {
                s.add(t);
            }
        }
        return s;
    }

    /** Non-daemon threads alive now that were not in {@code before}, after letting them end for up to {@code grace}. */
    static Set<Thread> leftSince(Set<Thread> before, Duration grace) throws InterruptedException {
        long deadline = System.nanoTime() + grace.toNanos();
        while (true) {
            Set<Thread> now = nonDaemon();
            now.removeAll(before);
            if (now.isEmpty() || System.nanoTime() - deadline > 0) {
                return now;
            }
            Thread.sleep(50);
        }
    }

    static String names(Set<Thread> threads) {
        return threads.stream().map(Thread::getName).sorted().collect(Collectors.joining(",", "[", "]"));
    }
}
