package io.reactorrdma.incast.topology;

/**
 * The ToR + spine tier's parameters (model notes §5, topology B), each declared once and validated here. The host
 * links and the ToRs take {@link IncastConfig}'s link rate, link delay and switch buffer; this record adds the shape
 * and the spine tier. Every ToR has one uplink to each spine.
 *
 * @param tors                ToR switches (default {@value #DEFAULT_TORS})
 * @param hostsPerTor         hosts under each ToR, one port each (default {@value #DEFAULT_HOSTS_PER_TOR}); 20 × 24 =
 *                            480 hosts hold the paper's 124 servers + 346 trainers
 * @param spines              spine switches, and so uplinks per ToR (default {@value #DEFAULT_SPINES})
 * @param uplinkBitsPerSecond the rate of every ToR–spine link (default {@value #DEFAULT_UPLINK_BITS_PER_SECOND});
 *                            8e12 must be a multiple of it so that a byte's serialization is a whole number of ps
 * @param spineBufferBytes    each spine's shared buffer (default {@value #DEFAULT_SPINE_BUFFER_BYTES} = 32 MiB, the
 *                            notes' figure for an all-100G switch)
 */
public record LeafSpineConfig(int tors, int hostsPerTor, int spines, long uplinkBitsPerSecond, long spineBufferBytes) {

    /** 20 ToRs. */
    public static final int DEFAULT_TORS = 20;
    /** 24 hosts per ToR: 480 hosts. */
    public static final int DEFAULT_HOSTS_PER_TOR = 24;
    /** 6 spines, so 6 × 100 Gb/s up for 24 × 25 Gb/s down: 600 Gb/s each way, no oversubscription. */
    public static final int DEFAULT_SPINES = 6;
    /** 100 Gb/s ToR–spine links. */
    public static final long DEFAULT_UPLINK_BITS_PER_SECOND = 100_000_000_000L;
    /** 32 MiB per spine: a 100G-class shared buffer (the ToRs keep IncastConfig's 12 MiB). */
    public static final long DEFAULT_SPINE_BUFFER_BYTES = 32L * 1024 * 1024;
    /** At most this many ports in all, so every port number is a comfortable int. */
    public static final int MAX_PORTS = 1 << 24;

    private static final long PS_BITS_PER_SECOND = 8_000_000_000_000L;

    /** Validates every parameter; the message names the parameter, its value and what is allowed. */
    public LeafSpineConfig {
        if (tors < 1 || hostsPerTor < 1 || spines < 1) {
            throw new IllegalArgumentException("tors " + tors + ", hostsPerTor " + hostsPerTor + ", spines " + spines
                    + ": each must be at least 1");
        }
        long ports = 2L * tors * hostsPerTor + 2L * tors * spines;
        if (ports > MAX_PORTS) {
            throw new IllegalArgumentException("tors " + tors + " × (hostsPerTor " + hostsPerTor + " + spines " + spines
                    + ") makes " + ports + " ports, more than " + MAX_PORTS + "; use a smaller fabric");
        }
        if ((long) tors * hostsPerTor < 2) {
            throw new IllegalArgumentException("tors " + tors + " × hostsPerTor " + hostsPerTor
                    + ": a fabric needs at least two hosts");
        }
        if (uplinkBitsPerSecond <= 0 || PS_BITS_PER_SECOND % uplinkBitsPerSecond != 0) {
            throw new IllegalArgumentException("uplinkBitsPerSecond " + uplinkBitsPerSecond + ": 8e12 must be a "
                    + "multiple of the rate so a byte takes whole picoseconds (10, 25, 40, 100, 200 or 400 Gb/s are)");
        }
        if (spineBufferBytes <= 0) {
            throw new IllegalArgumentException("spineBufferBytes " + spineBufferBytes + ": must be positive");
        }
    }

    /** The defaults: 20 ToRs × 24 hosts, 6 spines, 100 Gb/s uplinks, 32 MiB spine buffers. */
    public static LeafSpineConfig defaults() {
        return new LeafSpineConfig(DEFAULT_TORS, DEFAULT_HOSTS_PER_TOR, DEFAULT_SPINES, DEFAULT_UPLINK_BITS_PER_SECOND,
                DEFAULT_SPINE_BUFFER_BYTES);
    }

    /** This config with another shape (ToRs, hosts per ToR, spines) and the same links and buffers. */
    public LeafSpineConfig withShape(int torCount, int hostsEach, int spineCount) {
        return new LeafSpineConfig(torCount, hostsEach, spineCount, uplinkBitsPerSecond, spineBufferBytes);
    }

    /** This config with another spine buffer size. */
    public LeafSpineConfig withSpineBufferBytes(long bytes) {
        return new LeafSpineConfig(tors, hostsPerTor, spines, uplinkBitsPerSecond, bytes);
    }

    /** Hosts in all: tors × hostsPerTor. */
    public int hosts() {
        return tors * hostsPerTor;
    }
}
