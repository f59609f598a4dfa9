package io.reactorrdma.incast.dcqcn;

import io.reactorrdma.incast.topology.IncastConfig;

/**
 * DCQCN's parameters (congestion point, notification point, reaction point), each declared once as a
 * {@code DEFAULT_*} constant and validated here; installed with
 * {@link io.reactorrdma.incast.Simulation#congestionControl}. Units are in the names: bytes, picoseconds, bits per
 * second.
 *
 * <p>The defaults are one column of the DCQCN parameter tables of the sources in docs/INCAST.md, the DCQCN paper's
 * as htsim implements it (S3 {@code dcqcn.cpp}; Zhu et al., SIGCOMM 2015, S4), at 25 Gb/s host links: it is the only
 * column with a CNP interval of 50 µs and the paper's rate recovery (timer, byte counter, F stages). The
 * HPCC column (S1) has values for 25G but flags every ACK instead of pacing CNPs, and a 1 µs α timer. Where the
 * paper gives a range (Kmin 5–10 KB) the low end is taken; "KB" is read as 1000 bytes. RAI and RHAI are htsim's
 * rate/20 and rate/10 at 25 Gb/s. The minimum rate is not in the table: ours is 100 Mb/s, so 346 senders at the
 * minimum still exceed a 25 Gb/s link, as an incast at that scale should.
 *
 * @param enabled              whether DCQCN runs at all (default true; {@link #off()} is false, and then the model
 *                             behaves as without congestion control)
 * @param kminBytes            an egress queue at or below this is never marked (default {@value #DEFAULT_KMIN_BYTES})
 * @param kmaxBytes            an egress queue above this is always marked (default {@value #DEFAULT_KMAX_BYTES})
 * @param pmax                 the marking probability just below Kmax; it rises linearly from 0 at Kmin (default
 *                             {@value #DEFAULT_PMAX})
 * @param g                    the weight of a CNP in α (default {@value #DEFAULT_G} = 1/256)
 * @param alphaTimerPs         α decays by (1 − g) every this long without a CNP (default
 *                             {@value #DEFAULT_ALPHA_TIMER_PS} ps = 55 µs)
 * @param rateTimerPs          a rate increase step every this long since the last CNP (default
 *                             {@value #DEFAULT_RATE_TIMER_PS} ps = 55 µs)
 * @param byteCounterBytes     a rate increase step every this many wire bytes sent since the last CNP; 0 turns the
 *                             byte counter off, and then its count stays 0, so hyper increase never happens (default
 *                             {@value #DEFAULT_BYTE_COUNTER_BYTES})
 * @param fastRecoverySteps    F: increase steps while both counters are ≤ F are fast recovery; when both are > F,
 *                             hyper increase (default {@value #DEFAULT_FAST_RECOVERY_STEPS})
 * @param raiBitsPerSecond     the additive increase of the target rate (default {@value #DEFAULT_RAI_BITS_PER_SECOND})
 * @param rhaiBitsPerSecond    the hyper increase unit (default {@value #DEFAULT_RHAI_BITS_PER_SECOND})
 * @param cnpIntervalPs        the receiver sends at most one CNP per QP per this interval (default
 *                             {@value #DEFAULT_CNP_INTERVAL_PS} ps = 50 µs)
 * @param minRateBitsPerSecond a cut never takes a QP below this rate (default
 *                             {@value #DEFAULT_MIN_RATE_BITS_PER_SECOND})
 * @param cnpBytes             wire bytes of a CNP (default {@value #DEFAULT_CNP_BYTES})
 */
public record DcqcnConfig(boolean enabled, long kminBytes, long kmaxBytes, double pmax, double g, long alphaTimerPs,
                          long rateTimerPs, long byteCounterBytes, int fastRecoverySteps, long raiBitsPerSecond,
                          long rhaiBitsPerSecond, long cnpIntervalPs, long minRateBitsPerSecond, int cnpBytes) {

    /** Kmin 5 KB (the paper's 5–10 KB, low end). */
    public static final long DEFAULT_KMIN_BYTES = 5_000;
    /** Kmax 100 KB (paper column of the notes). */
    public static final long DEFAULT_KMAX_BYTES = 100_000;
    /** Pmax 1 % (paper). */
    public static final double DEFAULT_PMAX = 0.01;
    /** g = 1/256 (every source agrees). */
    public static final double DEFAULT_G = 1.0 / 256;
    /** α timer K = 55 µs (paper, htsim). */
    public static final long DEFAULT_ALPHA_TIMER_PS = 55_000_000L;
    /** Rate increase timer T = 55 µs (paper, htsim). */
    public static final long DEFAULT_RATE_TIMER_PS = 55_000_000L;
    /** Byte counter B = 10 MB (paper, htsim). */
    public static final long DEFAULT_BYTE_COUNTER_BYTES = 10_000_000L;
    /** F = 5 fast recovery steps (paper, htsim). */
    public static final int DEFAULT_FAST_RECOVERY_STEPS = 5;
    /** RAI = 25 Gb/s / 20 (htsim's rate/20). */
    public static final long DEFAULT_RAI_BITS_PER_SECOND = 1_250_000_000L;
    /** RHAI = 25 Gb/s / 10 (htsim's rate/10). */
    public static final long DEFAULT_RHAI_BITS_PER_SECOND = 2_500_000_000L;
    /** At most one CNP per QP per 50 µs (the DCQCN paper, ns3-rdma). */
    public static final long DEFAULT_CNP_INTERVAL_PS = 50_000_000L;
    /** 100 Mb/s floor (our choice; 346 × 100 Mb/s &gt; 25 Gb/s). */
    public static final long DEFAULT_MIN_RATE_BITS_PER_SECOND = 100_000_000L;
    /**
     * A RoCEv2 CNP: BTH plus 16 reserved bytes on the same 82 bytes of Ethernet, IPv4, UDP, BTH, ICRC, FCS, preamble
     * and gap as a data packet ({@link IncastConfig#DEFAULT_HEADER_BYTES}) = 98 wire bytes.
     */
    public static final int DEFAULT_CNP_BYTES = IncastConfig.DEFAULT_HEADER_BYTES + 16;

    /** Validates every parameter; the message names it, its value and what is allowed. */
    public DcqcnConfig {
        if (kminBytes < 0 || kmaxBytes <= kminBytes) {
            throw new IllegalArgumentException("kminBytes " + kminBytes + ", kmaxBytes " + kmaxBytes
                    + ": need 0 <= Kmin < Kmax (the marking ramp runs from Kmin to Kmax)");
        }
        if (!(pmax > 0 && pmax <= 1)) {
            throw new IllegalArgumentException("pmax " + pmax + ": a probability in (0, 1]");
        }
        if (!(g > 0 && g < 1)) {
            throw new IllegalArgumentException("g " + g + ": a weight in (0, 1), 1/256 in DCQCN");
        }
        requirePositive("alphaTimerPs", alphaTimerPs);
        requirePositive("rateTimerPs", rateTimerPs);
        if (byteCounterBytes < 0) {
            throw new IllegalArgumentException("byteCounterBytes " + byteCounterBytes + ": 0 (off) or positive");
        }
        if (fastRecoverySteps < 0) {
            throw new IllegalArgumentException("fastRecoverySteps " + fastRecoverySteps + ": must not be negative");
        }
        requirePositive("raiBitsPerSecond", raiBitsPerSecond);
        if (rhaiBitsPerSecond < 0) {
            throw new IllegalArgumentException("rhaiBitsPerSecond " + rhaiBitsPerSecond + ": must not be negative");
        }
        if (cnpIntervalPs < 0) {
            throw new IllegalArgumentException("cnpIntervalPs " + cnpIntervalPs + ": 0 (a CNP per marked packet) or "
                    + "positive");
        }
        requirePositive("minRateBitsPerSecond", minRateBitsPerSecond);
        requirePositive("cnpBytes", cnpBytes);
    }

    /** DCQCN on with every default. */
    public static DcqcnConfig defaults() {
        return new DcqcnConfig(true, DEFAULT_KMIN_BYTES, DEFAULT_KMAX_BYTES, DEFAULT_PMAX, DEFAULT_G,
                DEFAULT_ALPHA_TIMER_PS, DEFAULT_RATE_TIMER_PS, DEFAULT_BYTE_COUNTER_BYTES, DEFAULT_FAST_RECOVERY_STEPS,
                DEFAULT_RAI_BITS_PER_SECOND, DEFAULT_RHAI_BITS_PER_SECOND, DEFAULT_CNP_INTERVAL_PS,
                DEFAULT_MIN_RATE_BITS_PER_SECOND, DEFAULT_CNP_BYTES);
    }

    /** DCQCN off: the defaults with {@code enabled} false. */
    public static DcqcnConfig off() {
        return defaults().withEnabled(false);
    }

    /** This config switched on or off. */
    public DcqcnConfig withEnabled(boolean on) {
        return new DcqcnConfig(on, kminBytes, kmaxBytes, pmax, g, alphaTimerPs, rateTimerPs, byteCounterBytes,
                fastRecoverySteps, raiBitsPerSecond, rhaiBitsPerSecond, cnpIntervalPs, minRateBitsPerSecond, cnpBytes);
    }

    /** This config with another marking ramp (Kmin, Kmax in bytes; Pmax a probability). */
    public DcqcnConfig withMarking(long kmin, long kmax, double maxProbability) {
        return new DcqcnConfig(enabled, kmin, kmax, maxProbability, g, alphaTimerPs, rateTimerPs, byteCounterBytes,
                fastRecoverySteps, raiBitsPerSecond, rhaiBitsPerSecond, cnpIntervalPs, minRateBitsPerSecond, cnpBytes);
    }

    private static void requirePositive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " " + value + ": must be positive");
        }
    }
}
