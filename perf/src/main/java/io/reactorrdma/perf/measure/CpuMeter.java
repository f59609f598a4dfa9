package io.reactorrdma.perf.measure;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadMXBean;

/** CPU time consumed so far, in nanoseconds; -1 where the JVM cannot tell. */
@FunctionalInterface
public interface CpuMeter {

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

    /**
     * The live threads whose names start with one of {@code prefixes}, found now (threads started
     * later are not counted), summed; -1 when none was found or one has ended since.
     */
    static CpuMeter threadsNamed(String... prefixes) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long[] ids = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> java.util.Arrays.stream(prefixes).anyMatch(p -> t.getName().startsWith(p)))
                .mapToLong(Thread::getId).toArray();
        if (ids.length == 0 || !threads.isThreadCpuTimeSupported()) {
            return () -> -1;
        }
        if (!threads.isThreadCpuTimeEnabled()) {
            threads.setThreadCpuTimeEnabled(true);
        }
        return () -> {
            long sum = 0;
            for (long id : ids) {
                long t = threads.getThreadCpuTime(id);
                if (t < 0) {
                    return -1;
                }
                sum += t;
            }
            return sum;
        };
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
