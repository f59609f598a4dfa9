package io.reactorrdma.perf.doctor.checks;

import io.reactorrdma.perf.doctor.host.Host;
import io.reactorrdma.perf.doctor.host.PoolNeed;

import java.util.ArrayList;
import java.util.List;

/** Every check, in the order the report prints them: hardware, libraries, the JVM, limits, shm, the RoCE fabric. */
public final class Checks {

    private Checks() {
    }

    public static List<Check> all() {
        PoolNeed pools = PoolNeed.defaults();
        return List.of(new DevicesCheck(), new PortsCheck(), new GidsCheck(), new DeviceFilesCheck(), new RdmaCoreCheck(),
                new JdkCheck(), new LibdisniCheck(), new MemlockCheck(pools), new ShmCheck(pools), new RoceQosCheck());
    }

    /** The findings of every check on {@code host}. */
    public static List<Finding> run(Host host) {
        List<Finding> findings = new ArrayList<>();
        for (Check check : all()) {
            findings.addAll(check.run(host));
        }
        return findings;
    }
}
