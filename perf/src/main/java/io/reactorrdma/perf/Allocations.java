package io.reactorrdma.perf;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/** Bytes the calling thread has allocated so far (HotSpot's per-thread counter); -1 where unsupported. */
final class Allocations {

    private static final com.sun.management.ThreadMXBean THREADS = sunThreads();

    private Allocations() {
    }

    private static com.sun.management.ThreadMXBean sunThreads() {
        ThreadMXBean t = ManagementFactory.getThreadMXBean();
        if (t instanceof com.sun.management.ThreadMXBean) {
            com.sun.management.ThreadMXBean sun = (com.sun.management.ThreadMXBean) t;
            if (sun.isThreadAllocatedMemorySupported()) {
                if (!sun.isThreadAllocatedMemoryEnabled()) {
                    sun.setThreadAllocatedMemoryEnabled(true);
                }
                return sun;
            }
        }
        return null;
    }

    static long currentThread() {
        return THREADS == null ? -1 : THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
    }
}
