package io.reactorrdma.perf.doctor.checks;

import io.reactorrdma.perf.doctor.host.Gid;
import io.reactorrdma.perf.doctor.host.Host;
import io.reactorrdma.perf.doctor.host.RdmaPort;
import io.reactorrdma.perf.doctor.host.RdmaPorts;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Each port's GID table: on RoCE, a RoCE v2 GID with an IPv4 address (rdma_cm picks the GID from the address, and
 * disni builds IPv4 addresses only); on InfiniBand, any GID. A port's failure is a warning when an ACTIVE port passes.
 */
public final class GidsCheck implements Check {

    @Override
    public List<Finding> run(Host host) {
        List<RdmaPort> ports = RdmaPorts.read(host.paths());
        List<Finding> findings = new ArrayList<>();
        boolean oneUsable = false;
        for (RdmaPort port : ports) {
            Finding f = port.isEthernet() ? roce(port) : infiniband(port);
            findings.add(f);
            oneUsable |= port.isActive() && f.status() != Status.FAIL;
        }
        if (oneUsable) {
            findings.replaceAll(Finding::asWarning);
        }
        return findings;
    }

    private static Finding roce(RdmaPort port) {
        String topic = "gids " + port.name();
        String netdev = port.netdevs().isEmpty() ? "the port's network interface" : port.netdevs().get(0);
        String addAddress = "give " + netdev + " an IPv4 address (sudo ip addr add 10.0.0.1/24 dev " + netdev
                + "; the GID table follows the interface's addresses) and name it with reactor.rdma.disni.address";
        if (port.gids().isEmpty()) {
            return Finding.fail(topic, "no GID: " + netdev + " has no IP address", addAddress, Fixes.HARDWARE);
        }
        List<Gid> v2 = port.gids().stream().filter(Gid::isRoceV2).toList();
        List<Gid> v2Ipv4 = v2.stream().filter(Gid::isIpv4).toList();
        if (!v2Ipv4.isEmpty()) {
            return Finding.ok(topic, "RoCE v2: " + list(v2Ipv4));
        }
        if (!v2.isEmpty()) {
            return Finding.fail(topic, "RoCE v2 only for IPv6 addresses: " + list(v2), "disni and ffm are IPv4 only: " + addAddress,
                    Fixes.HARDWARE);
        }
        List<Gid> ipv4 = port.gids().stream().filter(Gid::isIpv4).toList();
        return Finding.warn(topic, "no RoCE v2 GID, only " + (port.gids().get(0).type().isEmpty() ? "GIDs of unknown type" : "RoCE v1")
                        + ": " + list(ipv4.isEmpty() ? port.gids() : ipv4),
                "the library is written for RoCE v2 (routable): use a kernel and driver with RoCE v2 (Linux 4.5+, current rdma-core);"
                        + " RoCE v1 works only within one Ethernet broadcast domain");
    }

    private static Finding infiniband(RdmaPort port) {
        String topic = "gids " + port.name();
        if (port.gids().isEmpty()) {
            return Finding.fail(topic, "no GID on the InfiniBand port", "the port gets its GIDs when it comes up: fix the port first"
                    + " (see its line above) and check that a subnet manager runs", Fixes.HARDWARE);
        }
        return Finding.ok(topic, port.gids().size() + (port.gids().size() == 1 ? " GID" : " GIDs") + ", index "
                + port.gids().get(0).index() + " " + port.gids().get(0).address());
    }

    private static String list(List<Gid> gids) {
        return gids.stream().map(g -> g.shown() + " (index " + g.index() + (g.netdev().isEmpty() ? "" : ", " + g.netdev()) + ")")
                .collect(Collectors.joining(", "));
    }
}
