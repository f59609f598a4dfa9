package io.reactorrdma.perf.doctor.checks;

import io.reactorrdma.perf.doctor.host.Host;
import io.reactorrdma.perf.doctor.host.HostPaths;
import io.reactorrdma.perf.doctor.host.RdmaPort;
import io.reactorrdma.perf.doctor.host.RdmaPorts;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Each port of each device: its state, link layer, rate and (RoCE) the MTU its network interface allows. A port that is
 * not ACTIVE fails the hardware providers only when no port is ACTIVE; with one that is, it is a warning.
 */
public final class PortsCheck implements Check {

    /** IB MTUs, as RoCE picks the largest that fits the Ethernet MTU. */
    private static final int[] IB_MTUS = {4096, 2048, 1024, 512, 256};
    /** Bytes of RoCE headers the kernel takes off the Ethernet MTU (GRH, UDP, BTH, XRC and atomic extended headers, ICRC). */
    private static final int ROCE_OVERHEAD = 96;

    @Override
    public List<Finding> run(Host host) {
        List<RdmaPort> ports = RdmaPorts.read(host.paths());
        if (RdmaPorts.devices(host.paths()).isEmpty()) {
            return List.of();
        }
        if (ports.isEmpty()) {
            return List.of(Finding.fail("ports", "the RDMA devices list no ports in sysfs",
                    "reload the device's driver and check dmesg for its errors", Fixes.HARDWARE));
        }
        boolean anyActive = ports.stream().anyMatch(RdmaPort::isActive);
        List<Finding> findings = new ArrayList<>();
        for (RdmaPort port : ports) {
            Finding f = port(host.paths(), port);
            findings.add(anyActive ? f.asWarning() : f);
        }
        return findings;
    }

    private static Finding port(HostPaths paths, RdmaPort port) {
        String topic = "port " + port.name();
        String link = port.linkLayer().isEmpty() ? "link layer unreadable" : port.isEthernet() ? "Ethernet (RoCE)" : port.linkLayer();
        String netdev = port.netdevs().isEmpty() ? "" : port.netdevs().get(0);
        StringBuilder found = new StringBuilder(port.stateName().isEmpty() ? "state unreadable" : port.stateName());
        if (!port.physStateName().isEmpty()) {
            found.append(" (").append(port.physStateName()).append(")");
        }
        found.append(", ").append(link);
        if (!netdev.isEmpty()) {
            found.append(" on ").append(netdev);
        }
        if (!port.rate().isEmpty()) {
            found.append(", ").append(port.rate());
        }
        if (!port.isActive()) {
            return Finding.fail(topic, found.toString(), notActiveFix(port, netdev), Fixes.HARDWARE);
        }
        if (!port.isEthernet()) {
            return Finding.ok(topic, found + "; MTU not in sysfs (ibv_devinfo shows active_mtu)"
                    + (netdev.isEmpty() ? "" : "; disni needs an IPv4 address on " + netdev));
        }
        OptionalInt mtu = netdev.isEmpty() ? OptionalInt.empty() : mtu(paths, netdev);
        if (mtu.isEmpty()) {
            return Finding.ok(topic, found + "; MTU unreadable (no network interface in sysfs)");
        }
        int ib = ibMtu(mtu.getAsInt());
        found.append(", RoCE MTU ").append(ib).append(" (").append(netdev).append(" mtu ").append(mtu.getAsInt()).append(")");
        if (ib < 4096) {
            return Finding.warn(topic, found.toString(), "for RoCE MTU 4096 raise the Ethernet MTU to 9000 (at least 4200) on "
                    + netdev + " and every switch port on the path: sudo ip link set dev " + netdev + " mtu 9000");
        }
        return Finding.ok(topic, found.toString());
    }

    private static String notActiveFix(RdmaPort port, String netdev) {
        String state = port.stateName();
        if (!port.isEthernet() && (state.equals("INIT") || state.equals("ARMED"))) {
            return "the link is up but no subnet manager has configured the port: run opensm on one host of the fabric"
                    + " (sudo apt-get install opensm or sudo dnf install opensm; systemctl start opensm) or enable the switch's";
        }
        return "bring the link up: check the cable or transceiver and the switch port"
                + (netdev.isEmpty() ? "" : "; sudo ip link set dev " + netdev + " up")
                + " (rdma link shows the state, ibv_devinfo -d " + port.device() + " the details)";
    }

    /** The RoCE MTU a port with Ethernet MTU {@code mtu} runs at (the kernel's {@code iboe_get_mtu}). */
    public static int ibMtu(int mtu) {
        for (int ib : IB_MTUS) {
            if (ib <= mtu - ROCE_OVERHEAD) {
                return ib;
            }
        }
        return 256;
    }

    private static OptionalInt mtu(HostPaths paths, String netdev) {
        try {
            return paths.read("/sys/class/net/" + netdev + "/mtu").map(s -> OptionalInt.of(Integer.parseInt(s)))
                    .orElse(OptionalInt.empty());
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }
}
