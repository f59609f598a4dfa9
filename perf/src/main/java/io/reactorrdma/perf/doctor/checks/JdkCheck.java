package io.reactorrdma.perf.doctor.checks;

import io.reactorrdma.perf.doctor.host.Host;
import io.reactorrdma.perf.doctor.host.JvmFacts;

import java.util.EnumSet;
import java.util.List;

/**
 * The JDK: 17+ runs shm and disni; ffm needs 22+ (the Foreign Function &amp; Memory API). A JDK 17 to 21 is the disni
 * path, not a fault of the host: its line is a WARN that blocks ffm alone and says how to get either hardware
 * provider. And on any JDK, Netty's direct memory access, which every provider's registered buffers need: Netty 4.2
 * turns it off by default on Java 25+ unless the JVM allows {@code sun.misc.Unsafe} memory access.
 */
public final class JdkCheck implements Check {

    /** The JDK release the ffm provider needs. */
    public static final int FFM_FEATURE = 22;

    @Override
    public List<Finding> run(Host host) {
        JvmFacts jvm = host.jvm();
        Finding jdk = jvm.feature() >= FFM_FEATURE
                ? Finding.ok("jdk", jvm.version() + ": runs shm, disni and ffm")
                : Finding.warn("jdk", jvm.version() + ": ffm needs JDK " + FFM_FEATURE + "+; disni is the JDK 17 path and runs on"
                                + " this one (so does shm)",
                        "run on JDK " + FFM_FEATURE + " or later to use ffm; on this JDK use disni (reactor.rdma.provider=disni, or auto,"
                                + " which opens it where libdisni and an RDMA device are present)", EnumSet.of(Provider.FFM));
        if (jvm.directMemoryAccess()) {
            return List.of(jdk);
        }
        return List.of(jdk, Finding.fail("netty memory", "Netty's direct memory access (sun.misc.Unsafe) is off in this JVM: "
                        + "registered buffers need it",
                "start the JVM with --sun-misc-unsafe-memory-access=allow (JDK 23+; Netty turns the access off by default on 25+)"
                        + " and without -Dio.netty.noUnsafe=true",
                EnumSet.of(Provider.SHM, Provider.DISNI, Provider.FFM)));
    }
}
