package io.reactorrdma.verbs.ffm.provider;

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
import java.util.stream.Stream;

/**
 * The IPv4 address of an RDMA device's network interface, from sysfs: rdma_cm names a device only through an IP
 * address of its interface (RoCE netdev or IPoIB). {@code <dev>/ports/<n>/gid_attrs/ndevs/<i>} names a RoCE GID's
 * netdev; {@code <dev>/device/net/} lists the netdevs of the device's PCI function.
 */
final class InterfaceAddresses {

    static final Path SYSFS = Path.of("/sys/class/infiniband");

    private InterfaceAddresses() {
    }

    /** The first IPv4 address of an interface of {@code devices}, or null. */
    static InetAddress firstIpv4(Path sysfs, List<String> devices) {
        for (String device : devices) {
            for (String netdev : netdevs(sysfs.resolve(device))) {
                InetAddress a = ipv4(netdev);
                if (a != null) {
                    return a;
                }
            }
        }
        return null;
    }

    private static List<String> netdevs(Path device) {
        List<String> names = new ArrayList<>();
        try (Stream<Path> ports = list(device.resolve("ports"))) {
            ports.forEach(port -> {
                try (Stream<Path> ndevs = list(port.resolve("gid_attrs").resolve("ndevs"))) {
                    ndevs.forEach(f -> {
                        try {
                            String n = Files.readString(f).trim();
                            if (!n.isEmpty() && !names.contains(n)) {
                                names.add(n);
                            }
                        } catch (IOException e) {
                            // an unset GID entry cannot be read: skip it
                        }
                    });
                }
            });
        }
        try (Stream<Path> net = list(device.resolve("device").resolve("net"))) {
            net.map(p -> p.getFileName().toString()).filter(n -> !names.contains(n)).forEach(names::add);
        }
        return names;
    }

    private static Stream<Path> list(Path dir) {
        try {
            return Files.isDirectory(dir) ? Files.list(dir).sorted() : Stream.empty();
        } catch (IOException e) {
            return Stream.empty();
        }
    }

    private static InetAddress ipv4(String netdev) {
        try {
            NetworkInterface ni = NetworkInterface.getByName(netdev);
            if (ni == null) {
                return null;
            }
            for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                if (a instanceof Inet4Address) {
                    return a;
                }
            }
        } catch (SocketException e) {
            return null;
        }
        return null;
    }
}
