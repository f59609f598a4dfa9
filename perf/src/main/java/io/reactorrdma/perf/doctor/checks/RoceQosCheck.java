package io.reactorrdma.perf.doctor.checks;

import io.reactorrdma.perf.doctor.host.Host;
import io.reactorrdma.perf.doctor.host.HostPaths;
import io.reactorrdma.perf.doctor.host.RdmaPort;
import io.reactorrdma.perf.doctor.host.RdmaPorts;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Hints about the lossless RoCE fabric the library assumes, where sysfs shows them: rdma_cm's default ToS and RoCE
 * mode per port (configfs, {@code /sys/kernel/config/rdma_cm/<device>/ports/<n>/}) and PFC per network interface
 * ({@code /sys/class/net/<if>/qos/pfc}, which only some drivers have). Never a failure: what cannot be read is said so,
 * with the command that shows it.
 */
public final class RoceQosCheck implements Check {

    public static final String CONFIGFS = "/sys/kernel/config/rdma_cm";
    /** DSCP 26 (priority 3 under the usual --trust dscp mapping) with ECN capable: what docs/HARDWARE.md sets. */
    public static final int RECOMMENDED_TOS = 106;

    @Override
    public List<Finding> run(Host host) {
        HostPaths paths = host.paths();
        List<Finding> findings = new ArrayList<>();
        Set<String> netdevs = new LinkedHashSet<>();
        for (RdmaPort port : RdmaPorts.read(paths)) {
            if (port.isEthernet()) {
                findings.add(tos(paths, port));
                netdevs.addAll(port.netdevs());
            }
        }
        for (String netdev : netdevs) {
            findings.add(pfc(paths, netdev));
        }
        return findings;
    }

    private static Finding tos(HostPaths paths, RdmaPort port) {
        String dir = CONFIGFS + "/" + port.device() + "/ports/" + port.number();
        String set = "sudo mkdir -p " + CONFIGFS + "/" + port.device() + " && echo " + RECOMMENDED_TOS + " | sudo tee " + dir
                + "/default_roce_tos && echo 'RoCE v2' | sudo tee " + dir + "/default_roce_mode (kernel 5.2+; MLNX_OFED: cma_roce_tos,"
                + " cma_roce_mode), on every host";
        Optional<String> tos = paths.read(dir + "/default_roce_tos");
        Optional<String> mode = paths.read(dir + "/default_roce_mode");
        String topic = "roce " + port.name();
        if (tos.isEmpty() && mode.isEmpty()) {
            return Finding.warn(topic, "default ToS and RoCE mode unreadable (no " + dir
                            + ": configfs not mounted or never set); unset, rdma_cm sends with ToS 0, which --trust dscp maps"
                            + " to priority 0,"
                            + " not the PFC-protected one",
                    set);
        }
        String found = "default ToS " + tos.orElse("unreadable") + ", mode " + mode.orElse("unreadable");
        boolean tosSet = tos.map(t -> !t.equals("0")).orElse(false);
        boolean v2 = mode.map(m -> m.contains("v2")).orElse(false);
        if (tosSet && v2) {
            return Finding.ok(topic, found);
        }
        return Finding.warn(topic, found + (tosSet ? "" : "; ToS 0 lands RoCE traffic on priority 0 under --trust dscp")
                + (v2 ? "" : "; the library is written for RoCE v2"), set);
    }

    private static Finding pfc(HostPaths paths, String netdev) {
        String file = "/sys/class/net/" + netdev + "/qos/pfc";
        Optional<String> pfc = paths.read(file);
        if (pfc.isEmpty()) {
            return Finding.warn("pfc " + netdev, "not readable from sysfs (no " + file + "; only some drivers expose it)",
                    "check that PFC is on for the RoCE priority (3 by convention) on the NIC and every switch: mlnx_qos -i " + netdev
                            + " or lldptool -t -i " + netdev + " -V PFC");
        }
        return Finding.ok("pfc " + netdev, String.join(" ", pfc.get().split("\\s*\n\\s*"))
                + " (as the driver writes it: PFC should be on for the RoCE priority, 3 by convention)");
    }
}
