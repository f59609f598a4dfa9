package io.reactorrdma.perf.doctor.host;

import java.util.Objects;

/**
 * What the checks look at: the host's files and the JVM's facts.
 *
 * @param paths the host's files (under {@code --root} in tests)
 * @param jvm   the JVM the doctor runs in
 */
public record Host(HostPaths paths, JvmFacts jvm) {

    public Host {
        Objects.requireNonNull(paths, "paths");
        Objects.requireNonNull(jvm, "jvm");
    }
}
