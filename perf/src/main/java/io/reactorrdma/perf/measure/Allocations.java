package io.reactorrdma.perf.measure;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/** Bytes the calling thread has allocated so far (HotSpot's per-thread counter); -1 where unsupported. */
public final class Allocations {

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

    public static long currentThread() {
        return THREADS == null ? -1 : THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
    }
}
