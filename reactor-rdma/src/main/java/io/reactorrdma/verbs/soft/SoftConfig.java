package io.reactorrdma.verbs.soft;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Objects;

/**
 * Every tunable of the soft provider, declared once with its default and why. Immutable; each
 * {@code with…} returns a copy. {@link #fromSystemProperties()} reads overrides from
 * {@code reactor.rdma.soft.*} system properties.
 */
public final class SoftConfig {

    /**
     * Where shm keeps its files: a per-user directory under /dev/shm (tmpfs: mapped files are plain
     * memory). Property {@code reactor.rdma.soft.shmDir}.
     */
    public static final Path DEFAULT_SHM_DIRECTORY =
            Paths.get("/dev/shm", "reactor-rdma-" + System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_"));

    /**
     * How long a peer may stay silent before it counts as dead and outstanding work fails with
     * RETRY_EXC_ERR (the soft equivalent of QP timeout × retry count). A killed process is noticed
     * at once (its socket closes); this bounds the case of a hung one. Long enough to ride out a GC
     * pause. Property {@code reactor.rdma.soft.peerTimeoutMillis}.
     */
    public static final Duration DEFAULT_PEER_TIMEOUT = Duration.ofSeconds(4);

    /**
     * Most regions one context may hold at once (slots in its region table; at most 65535, since
     * the index is 16 bits of the key). 16384 blocks of 4 MiB is 64 GiB. Property
     * {@code reactor.rdma.soft.maxRegions}.
     */
    public static final int DEFAULT_MAX_REGIONS = 16384;

    /** Largest region: a Java buffer is indexed by int; 1 GiB keeps offsets comfortably in range. */
    public static final int MAX_REGION_SIZE = 1 << 30;

    /** Largest message of one work request (hardware ports allow 2 GiB; our regions stop at 1 GiB). */
    public static final int MAX_MESSAGE_SIZE = 1 << 30;

    /** Deepest queue. */
    public static final int MAX_QP_WR = 16384;

    /** Most scatter/gather entries per request. */
    public static final int MAX_SGE = 16;

    /** Largest completion queue. */
    public static final int MAX_CQE = 1 << 20;

    /**
     * Private-data limits of InfiniBand CM, which librdmacm enforces for RC: 56 bytes with a
     * connect, 196 with an accept, 148 with a reject. The soft provider enforces the same, so
     * code tested here fits hardware.
     */
    public static final int MAX_CONNECT_PRIVATE_DATA = 56;
    public static final int MAX_ACCEPT_PRIVATE_DATA = 196;
    public static final int MAX_REJECT_PRIVATE_DATA = 148;

    private final Path shmDirectory;
    private final Duration peerTimeout;
    private final int maxRegions;
    private final SoftFaults faults;

    private SoftConfig(Path shmDirectory, Duration peerTimeout, int maxRegions, SoftFaults faults) {
        this.shmDirectory = shmDirectory;
        this.peerTimeout = peerTimeout;
        this.maxRegions = maxRegions;
        this.faults = faults;
    }

    /** The defaults. */
    public static SoftConfig defaults() {
        return new SoftConfig(DEFAULT_SHM_DIRECTORY, DEFAULT_PEER_TIMEOUT, DEFAULT_MAX_REGIONS, SoftFaults.none());
    }

    /** The defaults, overridden by any {@code reactor.rdma.soft.*} system property that is set. */
    public static SoftConfig fromSystemProperties() {
        SoftConfig c = defaults();
        String dir = System.getProperty("reactor.rdma.soft.shmDir");
        if (dir != null && !dir.isBlank()) {
            c = c.withShmDirectory(Paths.get(dir));
        }
        String timeout = System.getProperty("reactor.rdma.soft.peerTimeoutMillis");
        if (timeout != null && !timeout.isBlank()) {
            c = c.withPeerTimeout(Duration.ofMillis(parse("reactor.rdma.soft.peerTimeoutMillis", timeout)));
        }
        String regions = System.getProperty("reactor.rdma.soft.maxRegions");
        if (regions != null && !regions.isBlank()) {
            c = c.withMaxRegions((int) parse("reactor.rdma.soft.maxRegions", regions));
        }
        return c;
    }

    private static long parse(String name, String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("system property " + name + "=" + value + " is not a number", e);
        }
    }

    public SoftConfig withShmDirectory(Path dir) {
        return new SoftConfig(Objects.requireNonNull(dir, "dir").toAbsolutePath(), peerTimeout, maxRegions, faults);
    }

    public SoftConfig withPeerTimeout(Duration timeout) {
        if (timeout.toMillis() < 10) {
            throw new IllegalArgumentException("peer timeout must be at least 10 ms, got " + timeout.toMillis() + " ms");
        }
        return new SoftConfig(shmDirectory, timeout, maxRegions, faults);
    }

    public SoftConfig withMaxRegions(int maxRegions) {
        if (maxRegions < 1 || maxRegions > RegionKeys.MAX_INDEX) {
            throw new IllegalArgumentException("maxRegions must be 1.." + RegionKeys.MAX_INDEX + ", got " + maxRegions);
        }
        return new SoftConfig(shmDirectory, peerTimeout, maxRegions, faults);
    }

    /** Faults to inject, for tests ({@link SoftFaults}); not read from system properties. */
    public SoftConfig withFaults(SoftFaults faults) {
        return new SoftConfig(shmDirectory, peerTimeout, maxRegions, Objects.requireNonNull(faults, "faults"));
    }

    public Path shmDirectory() {
        return shmDirectory;
    }

    public Duration peerTimeout() {
        return peerTimeout;
    }

    /** Heartbeats go out four times per peer timeout, so one lost beat is no false alarm. */
    public Duration heartbeatInterval() {
        return peerTimeout.dividedBy(4);
    }

    public int maxRegions() {
        return maxRegions;
    }

    public SoftFaults faults() {
        return faults;
    }

    @Override
    public String toString() {
        return "SoftConfig{shmDirectory=" + shmDirectory + ", peerTimeout=" + peerTimeout.toMillis() + "ms, maxRegions=" + maxRegions + "}";
    }
}
