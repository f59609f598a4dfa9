package io.reactorrdma.perf.doctor.host;

import java.util.List;
import java.util.Locale;

/**
 * One port of an RDMA device, as {@code /sys/class/infiniband/<device>/ports/<n>/} describes it.
 *
 * @param device     the device ({@code mlx5_0})
 * @param number     the port number (from 1)
 * @param state      {@code state}: {@code 4: ACTIVE}, {@code 1: DOWN}, ...; empty when unreadable
 * @param physState  {@code phys_state}: {@code 5: LinkUp}, {@code 3: Disabled}, ...
 * @param linkLayer  {@code link_layer}: {@code Ethernet} (RoCE) or {@code InfiniBand}
 * @param rate       {@code rate}: {@code 100 Gb/sec (4X EDR)}
 * @param gids       the used entries of the GID table (non-zero), by index
 * @param netdevs    the network interfaces of the port (from the GIDs, else the device's {@code device/net/})
 */
public record RdmaPort(String device, int number, String state, String physState, String linkLayer, String rate, List<Gid> gids,
                List<String> netdevs) {

    public RdmaPort {
        gids = List.copyOf(gids);
        netdevs = List.copyOf(netdevs);
    }

    /** {@code mlx5_0/1}. */
    public String name() {
        return device + "/" + number;
    }

    public boolean isActive() {
        return stateName().equals("ACTIVE");
    }

    public boolean isEthernet() {
        return linkLayer.equalsIgnoreCase("Ethernet");
    }

    /** The state without its number: {@code ACTIVE}. */
    public String stateName() {
        return words(state).toUpperCase(Locale.ROOT);
    }

    /** The physical state without its number: {@code LinkUp}. */
    public String physStateName() {
        return words(physState);
    }

    private static String words(String numbered) {
        int colon = numbered.indexOf(':');
        return (colon >= 0 ? numbered.substring(colon + 1) : numbered).trim();
    }
}
