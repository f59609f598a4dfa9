package io.reactorrdma.perf.doctor.checks;

import io.reactorrdma.perf.doctor.host.Host;
import io.reactorrdma.perf.doctor.host.JvmFacts;

import java.util.List;

/**
 * The JDK: 17+ runs shm and disni; the planned ffm provider will need 22+ (the Foreign Function &amp; Memory API). Only
 * said, never a warning: nothing of this release needs more than 17 (the doctor itself needs 17 to run).
 */
public final class JdkCheck implements Check {

    /** The JDK release the ffm provider will need. */
    public static final int FFM_FEATURE = 22;

    @Override
    public List<Finding> run(Host host) {
        JvmFacts jvm = host.jvm();
        if (jvm.feature() >= FFM_FEATURE) {
            return List.of(Finding.ok("jdk", jvm.version() + ": runs shm and disni, and is new enough for the planned ffm provider"));
        }
        return List.of(Finding.ok("jdk", jvm.version() + ": runs shm and disni; the planned ffm provider (not in this release)"
                + " will need JDK " + FFM_FEATURE + "+"));
    }
}
