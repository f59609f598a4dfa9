package io.reactorrdma.perf.jmh;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * Bytes allocated by a chosen set of threads (HotSpot's per-thread counters): what one code path
 * allocates, without the rest of the JVM. Threads that ended count no more.
 */
final class PathAllocations {

    private static final com.sun.management.ThreadMXBean THREADS = threads();

    private PathAllocations() {
    }

    private static com.sun.management.ThreadMXBean threads() {
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean) {
            com.sun.management.ThreadMXBean t = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            if (t.isThreadAllocatedMemorySupported()) {
                t.setThreadAllocatedMemoryEnabled(true);
                return t;
            }
        }
        return null;
    }

    /** The ids of {@code self} and of every live thread whose name starts with one of {@code prefixes}. */
    static long[] threadIds(Thread self, String... prefixes) {
        List<Long> ids = new ArrayList<>();
        ids.add(self.getId());
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            for (String p : prefixes) {
                if (t != self && t.getName().startsWith(p)) {
                    ids.add(t.getId());
                    break;
                }
            }
        }
        long[] out = new long[ids.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = ids.get(i);
        }
        return out;
    }

    /** Bytes the threads have allocated so far; -1 where the JVM does not count them. */
    static long allocated(long[] ids) {
        if (THREADS == null) {
            return -1;
        }
        long sum = 0;
        for (long b : THREADS.getThreadAllocatedBytes(ids)) {
            if (b > 0) {
                sum += b;
            }
        }
        return sum;
    }
}
