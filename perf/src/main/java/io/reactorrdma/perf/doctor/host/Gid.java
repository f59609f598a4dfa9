package io.reactorrdma.perf.doctor.host;

import java.util.Locale;

/**
 * One entry of a port's GID table, as sysfs lists it ({@code ports/<n>/gids/<index>},
 * {@code gid_attrs/types/<index>}, {@code gid_attrs/ndevs/<index>}).
 *
 * @param index   the GID index
 * @param address the GID as sysfs writes it: eight groups of four hex digits
 * @param type    {@code RoCE v2}, {@code IB/RoCE v1}, or empty when unreadable
 * @param netdev  the network interface it belongs to (RoCE), or empty
 */
public record Gid(int index, String address, String type, String netdev) {

    private static final String IPV4_MAPPED = "0000:0000:0000:0000:0000:ffff:";

    /** An unused entry: all zeros. */
    public boolean isZero() {
        return address.replace(":", "").chars().allMatch(c -> c == '0');
    }

    public boolean isRoceV2() {
        return type.toLowerCase(Locale.ROOT).contains("v2");
    }

    /** Whether the GID carries an IPv4 address ({@code ::ffff:a.b.c.d}): what rdma_cm uses for an IPv4 address. */
    public boolean isIpv4() {
        return address.toLowerCase(Locale.ROOT).startsWith(IPV4_MAPPED) && address.length() == IPV4_MAPPED.length() + 9;
    }

    /** The address for people: {@code 10.0.0.1} for an IPv4 GID, else the GID as sysfs writes it. */
    public String shown() {
        if (!isIpv4()) {
            return address;
        }
        String hex = address.substring(IPV4_MAPPED.length()).replace(":", "");
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 8; i += 2) {
            if (i > 0) {
                b.append('.');
            }
            b.append(Integer.parseInt(hex.substring(i, i + 2), 16));
        }
        return b.toString();
    }
}
