package io.reactorrdma.examples.ps.demo.measure;

import java.lang.management.ManagementFactory;

/** CPU time this JVM used so far (every thread, the JVM's own included), in nanoseconds; -1 where the JVM cannot tell. */
public final class JvmCpu {

    private JvmCpu() {
    }

    /** Now. */
    public static long nanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }
}
