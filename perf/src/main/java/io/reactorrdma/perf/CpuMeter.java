package io.reactorrdma.perf;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadMXBean;

/** CPU time consumed so far, in nanoseconds; -1 where the JVM cannot tell. */
@FunctionalInterface
interface CpuMeter {

    long nanos();

    /** This process: every thread, the JVM's own included. */
    static CpuMeter process() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            com.sun.management.OperatingSystemMXBean sun = (com.sun.management.OperatingSystemMXBean) os;
            return sun::getProcessCpuTime;
        }
        return () -> -1;
    }

    /** One thread of this JVM (ThreadMXBean); -1 once it has ended. */
    static CpuMeter thread(long threadId) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isThreadCpuTimeSupported()) {
            return () -> -1;
        }
        if (!threads.isThreadCpuTimeEnabled()) {
            threads.setThreadCpuTimeEnabled(true);
        }
        return () -> threads.getThreadCpuTime(threadId);
    }

    /** The calling thread. */
    static CpuMeter currentThread() {
        return thread(Thread.currentThread().getId());
    }

    /** The time between two readings, -1 when either is unknown. */
    static long delta(long start, long end) {
        return start < 0 || end < 0 ? -1 : end - start;
    }
}
