package io.reactorrdma.config;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Objects;

/**
 * Every tunable of the soft provider, declared once with its default and why. Immutable, checked
 * where it is made (the canonical constructor); each {@code with…} returns a copy.
 * {@link #fromSystemProperties()} reads overrides from {@code reactor.rdma.soft.*} system properties.
 *
 * @param shmDirectory   where shm keeps its files (made absolute)
 * @param peerTimeout    how long a peer may stay silent before it counts as dead; at least 10 ms
 * @param maxRegions     most regions one context may hold at once: 1..{@value #MAX_REGIONS}
 * @param strict         whether strict mode is on ({@link #withStrict})
 * @param strictCmDelay  how long one connection-management step takes in strict mode (0..10 s);
 *                       {@link #cmDelay()} is what applies
 */
public record SoftConfig(Path shmDirectory, Duration peerTimeout, int maxRegions, boolean strict, Duration strictCmDelay) {

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

    /** Most regions a context can address: the region's index is 16 bits of its key. */
    public static final int MAX_REGIONS = 65535;

    /**
     * System property that switches strict mode on (see {@link #strict()}). It is the one setting
     * whose default is read from its property, so a test suite that sets it makes every soft
     * context strict, even one built from {@link #defaults()}. The build's surefire configuration
     * sets it for every module's tests.
     */
    public static final String STRICT_PROPERTY = "reactor.rdma.soft.strict";

    /**
     * How long a connection-management step takes in strict mode: address resolution before a
     * connect, and the server's wait for the client's ready-to-use message after an accept
     * (RDMA CM round trips take milliseconds on real fabrics). Property
     * {@code reactor.rdma.soft.cmDelayMillis}.
     */
    public static final Duration DEFAULT_STRICT_CM_DELAY = Duration.ofMillis(3);


    public SoftConfig {
        shmDirectory = Objects.requireNonNull(shmDirectory, "shmDirectory").toAbsolutePath();
        Objects.requireNonNull(peerTimeout, "peerTimeout");
        if (peerTimeout.toMillis() < 10) {
            throw new IllegalArgumentException("peer timeout must be at least 10 ms, got " + peerTimeout.toMillis() + " ms");
        }
        if (maxRegions < 1 || maxRegions > MAX_REGIONS) {
            throw new IllegalArgumentException("maxRegions must be 1.." + MAX_REGIONS + ", got " + maxRegions);
        }
        Objects.requireNonNull(strictCmDelay, "strictCmDelay");
        if (strictCmDelay.isNegative() || strictCmDelay.toMillis() > 10_000) {
            throw new IllegalArgumentException("cmDelay must be 0..10000 ms, got " + strictCmDelay.toMillis() + " ms");
        }
    }

    /** The defaults; strict mode as the {@value #STRICT_PROPERTY} system property says (off when unset). */
    public static SoftConfig defaults() {
        return new SoftConfig(DEFAULT_SHM_DIRECTORY, DEFAULT_PEER_TIMEOUT, DEFAULT_MAX_REGIONS,
                Boolean.parseBoolean(System.getProperty(STRICT_PROPERTY, "false").trim()), DEFAULT_STRICT_CM_DELAY);
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
        String cmDelay = System.getProperty("reactor.rdma.soft.cmDelayMillis");
        if (cmDelay != null && !cmDelay.isBlank()) {
            c = c.withCmDelay(Duration.ofMillis(parse("reactor.rdma.soft.cmDelayMillis", cmDelay)));
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
        return new SoftConfig(dir, peerTimeout, maxRegions, strict, strictCmDelay);
    }

    public SoftConfig withPeerTimeout(Duration timeout) {
        return new SoftConfig(shmDirectory, timeout, maxRegions, strict, strictCmDelay);
    }

    public SoftConfig withMaxRegions(int maxRegions) {
        return new SoftConfig(shmDirectory, peerTimeout, maxRegions, strict, strictCmDelay);
    }

    /**
     * Strict mode: the soft provider behaves as an RNIC does wherever code could otherwise come to
     * lean on soft-provider behaviour (docs/SOFT-PROVIDER.md, "Strict mode"):
     * <ul>
     *   <li>a queue pair's number reads 0 until its connect or accept completes (DiSNI creates the
     *       verbs QP only then);</li>
     *   <li>{@code byteLen} of SEND and WRITE completions (and of failed send-queue completions)
     *       is poisoned to -1: verbs define it only for receives, RDMA READ and atomics;</li>
     *   <li>connection management takes {@link #cmDelay()}: a connect resolves that long before it
     *       reaches the listener, and an accept returns that long after the client may already
     *       send (the server's RDMA_CM_EVENT_ESTABLISHED follows the client's);</li>
     *   <li>teardown is asynchronous: the peer of a loopback connection learns of a disconnect
     *       (or a destroyed queue pair) {@link #cmDelay()} later, as the DREQ travels.</li>
     * </ul>
     * What hardware does regardless of this flag the soft provider always does: completion-queue
     * capacity is reserved for send and receive depths, and send-queue slots are freed only by a
     * polled completion covering them (so an unsignaled run longer than the depth stalls).
     * Property {@value #STRICT_PROPERTY}.
     */
    public SoftConfig withStrict(boolean strict) {
        return new SoftConfig(shmDirectory, peerTimeout, maxRegions, strict, strictCmDelay);
    }

    /** How long one connection-management step takes in strict mode (0..10 s; ignored when not strict). */
    public SoftConfig withCmDelay(Duration delay) {
        return new SoftConfig(shmDirectory, peerTimeout, maxRegions, strict, delay);
    }

    /** The connection-management delay that applies: {@link #withCmDelay} in strict mode, zero otherwise. */
    public Duration cmDelay() {
        return strict ? strictCmDelay : Duration.ZERO;
    }

    /** Heartbeats go out four times per peer timeout, so one lost beat is no false alarm. */
    public Duration heartbeatInterval() {
        return peerTimeout.dividedBy(4);
    }

    @Override
    public String toString() {
        return "SoftConfig{shmDirectory=" + shmDirectory + ", peerTimeout=" + peerTimeout.toMillis() + "ms, maxRegions=" + maxRegions
                + (strict ? ", strict, cmDelay=" + strictCmDelay.toMillis() + "ms" : "") + "}";
    }
}
