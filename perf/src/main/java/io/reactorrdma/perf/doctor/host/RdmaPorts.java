package io.reactorrdma.perf.doctor.host;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Reads the RDMA devices and their ports from sysfs ({@code /sys/class/infiniband}), as {@code ibv_devinfo} shows them. */
public final class RdmaPorts {

    /** Where the kernel lists RDMA devices. */
    public static final String CLASS_DIR = "/sys/class/infiniband";

    private RdmaPorts() {
    }

    /** The devices sysfs lists, sorted; empty when there is none (or no RDMA support in the kernel). */
    public static List<String> devices(HostPaths paths) {
        return paths.list(CLASS_DIR);
    }

    /** How many ports sysfs lists for {@code device}. */
    public static int portCount(HostPaths paths, String device) {
        return (int) paths.list(CLASS_DIR + "/" + device + "/ports").stream().filter(n -> n.chars().allMatch(Character::isDigit)).count();
    }

    /** Every port of every device. */
    public static List<RdmaPort> read(HostPaths paths) {
        List<RdmaPort> ports = new ArrayList<>();
        for (String device : devices(paths)) {
            for (String n : paths.list(CLASS_DIR + "/" + device + "/ports")) {
                if (n.chars().allMatch(Character::isDigit)) {
                    ports.add(port(paths, device, Integer.parseInt(n)));
                }
            }
        }
        return ports;
    }

    private static RdmaPort port(HostPaths paths, String device, int number) {
        String dir = CLASS_DIR + "/" + device + "/ports/" + number;
        List<Gid> gids = new ArrayList<>();
        Set<String> netdevs = new LinkedHashSet<>();
        for (String index : paths.list(dir + "/gids")) {
            if (!index.chars().allMatch(Character::isDigit)) {
                continue;
            }
            String address = paths.read(dir + "/gids/" + index).orElse("");
            String netdev = paths.read(dir + "/gid_attrs/ndevs/" + index).orElse("");
            Gid gid = new Gid(Integer.parseInt(index), address, paths.read(dir + "/gid_attrs/types/" + index).orElse(""), netdev);
            if (!address.isEmpty() && !gid.isZero()) {
                gids.add(gid);
                if (!netdev.isEmpty()) {
                    netdevs.add(netdev);
                }
            }
        }
        if (netdevs.isEmpty()) {
            netdevs.addAll(paths.list(CLASS_DIR + "/" + device + "/device/net"));
        }
        return new RdmaPort(device, number, paths.read(dir + "/state").orElse(""), paths.read(dir + "/phys_state").orElse(""),
                paths.read(dir + "/link_layer").orElse(""), paths.read(dir + "/rate").orElse(""), gids, List.copyOf(netdevs));
    }
}
