package io.reactorrdma.verbs.disni;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Finds the network interfaces behind RDMA devices in sysfs, and their IPv4 addresses: rdma_cm
 * names a device only through an IP address of its interface (RoCE netdev or IPoIB).
 * {@code <dev>/ports/<n>/gid_attrs/ndevs/<i>} names a RoCE GID's netdev; {@code <dev>/device/net/}
 * lists the netdevs of the device's PCI function (IPoIB, and most RoCE NICs).
 */
final class RdmaInterfaces {

    private final Path devicesDir;
    private final Function<String, List<InetAddress>> addressesOf;

    RdmaInterfaces(Path devicesDir, Function<String, List<InetAddress>> addressesOf) {
        this.devicesDir = devicesDir;
        this.addressesOf = addressesOf;
    }

    static RdmaInterfaces system(Path devicesDir) {
        return new RdmaInterfaces(devicesDir, RdmaInterfaces::systemAddresses);
    }

    /** The netdev names of {@code device}, in a stable order, without duplicates. */
    List<String> netdevs(String device) {
        List<String> out = new ArrayList<>();
        Path dev = devicesDir.resolve(device);
        try (Stream<Path> ports = list(dev.resolve("ports"))) {
            for (Path port : ports.sorted().toList()) {
                try (Stream<Path> ndevs = list(port.resolve("gid_attrs").resolve("ndevs"))) {
                    for (Path n : ndevs.sorted().toList()) {
                        String name = read(n);
                        if (name != null && !name.isEmpty() && !out.contains(name)) {
                            out.add(name);
                        }
                    }
                }
            }
        }
        try (Stream<Path> net = list(dev.resolve("device").resolve("net"))) {
            for (Path n : net.sorted().toList()) {
                String name = n.getFileName().toString();
                if (!out.contains(name)) {
                    out.add(name);
                }
            }
        }
        return out;
    }

    /** The first IPv4 address on an interface of one of {@code devices}, or null. */
    InetAddress firstIpv4(List<String> devices) {
        for (String d : devices) {
            for (String netdev : netdevs(d)) {
                for (InetAddress a : addressesOf.apply(netdev)) {
                    if (a instanceof Inet4Address) {
                        return a;
                    }
                }
            }
        }
        return null;
    }

    /** Which device's interface carries {@code address}; null if none does. */
    String deviceOf(List<String> devices, InetAddress address) {
        for (String d : devices) {
            for (String netdev : netdevs(d)) {
                if (addressesOf.apply(netdev).contains(address)) {
                    return d;
                }
            }
        }
        return null;
    }

    private static Stream<Path> list(Path dir) {
        try {
            return Files.isDirectory(dir) ? Files.list(dir) : Stream.empty();
        } catch (IOException e) {
            return Stream.empty();
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p).trim();
        } catch (IOException e) {
            return null; // unused GID slots cannot be read
        }
    }

    private static List<InetAddress> systemAddresses(String netdev) {
        try {
            NetworkInterface ni = NetworkInterface.getByName(netdev);
            return ni == null ? List.of() : Collections.list(ni.getInetAddresses());
        } catch (SocketException e) {
            return List.of();
        }
    }
}
