package io.reactorrdma.incast.dcqcn;

import java.util.Arrays;

/**
 * DCQCN's reaction point, one rate limiter per QP (flow) in the sender's NIC. A QP starts at line rate with α = 1.
 * On a CNP: RT ← RC, RC ← max(RC·(1 − α/2), min rate), α ← (1 − g)·α + g, and the timer, the byte counter and their
 * counts reset. Every α timer period without a CNP: α ← (1 − g)·α. Every rate timer period since the last CNP, and
 * every B wire bytes sent: an increase step, with the step's counter incremented first (as in S3): fast recovery
 * (RC ← (RT + RC)/2) while both counts are ≤ F; hyper increase (RT += (min − F)·RHAI) when both are > F; otherwise
 * additive (RT += RAI); then RC ← (RT + RC)/2, capped at line rate; at line rate a step changes nothing.
 *
 * <p>Timers are lazy: nothing is scheduled per QP. When a QP sends or gets a CNP, the periods elapsed since it was
 * last brought up to date are applied in closed form: α by one power of (1 − g); the increase steps by phases of one
 * rule each, where the target's increments are p + q·j for step j, so RT_j = RT_0 + p·j + q·j(j+1)/2 and
 * RT_j − RC_j = (p − q) + q·j + (RT_0 − RC_0 − p + q)/2^j. The step where RC reaches line rate is found by bisection.
 * Byte-counter steps happen only at sends, so applying the timer periods first keeps the order of both exact.
 *
 * <p>The pacer: after a packet of w wire bytes, the QP may send again w·8/RC later (exactly the line's serialization
 * at line rate). A rate change between two packets applies from the next packet.
 */
public final class ReactionPoints {

    /** α of a new QP (the paper, S3). */
    static final double INITIAL_ALPHA = 1.0;

    private static final double PS_BITS_PER_SECOND = 8e12;

    private final double g;
    private final long alphaTimerPs;
    private final long rateTimerPs;
    private final long byteCounterBytes;
    private final long f;
    private final double rai;
    private final double rhai;
    private final double minRate;

    private double[] rc = new double[16];
    private double[] rt = new double[16];
    private double[] alpha = new double[16];
    private double[] line = new double[16];
    private long[] linePsPerByte = new long[16];
    private long[] alphaAnchorPs = new long[16];
    private long[] rateAnchorPs = new long[16];
    private long[] timerCount = new long[16];
    private long[] byteCount = new long[16];
    private long[] bytesSinceStep = new long[16];
    private long[] eligiblePs = new long[16];
    private boolean[] belowLine = new boolean[16];
    private long cuts;

    public ReactionPoints(DcqcnConfig config) {
        this.g = config.g();
        this.alphaTimerPs = config.alphaTimerPs();
        this.rateTimerPs = config.rateTimerPs();
        this.byteCounterBytes = config.byteCounterBytes();
        this.f = config.fastRecoverySteps();
        this.rai = config.raiBitsPerSecond();
        this.rhai = config.rhaiBitsPerSecond();
        this.minRate = config.minRateBitsPerSecond();
    }

    /** A new QP {@code flow} on a NIC whose link takes {@code psPerByte}, at line rate from {@code nowPs}. */
    public void add(int flow, long psPerByte, long nowPs) {
        if (flow >= rc.length) {
            int capacity = Math.max(2 * rc.length, flow + 1);
            rc = Arrays.copyOf(rc, capacity);
            rt = Arrays.copyOf(rt, capacity);
            alpha = Arrays.copyOf(alpha, capacity);
            line = Arrays.copyOf(line, capacity);
            linePsPerByte = Arrays.copyOf(linePsPerByte, capacity);
            alphaAnchorPs = Arrays.copyOf(alphaAnchorPs, capacity);
            rateAnchorPs = Arrays.copyOf(rateAnchorPs, capacity);
            timerCount = Arrays.copyOf(timerCount, capacity);
            byteCount = Arrays.copyOf(byteCount, capacity);
            bytesSinceStep = Arrays.copyOf(bytesSinceStep, capacity);
            eligiblePs = Arrays.copyOf(eligiblePs, capacity);
            belowLine = Arrays.copyOf(belowLine, capacity);
        }
        line[flow] = PS_BITS_PER_SECOND / psPerByte;
        if (minRate > line[flow]) {
            throw new IllegalArgumentException("minRateBitsPerSecond " + (long) minRate + " is above the NIC's line "
                    + "rate " + (long) line[flow] + " b/s: give a minimum rate below the line rate");
        }
        linePsPerByte[flow] = psPerByte;
        rc[flow] = line[flow];
        rt[flow] = line[flow];
        alpha[flow] = INITIAL_ALPHA;
        alphaAnchorPs[flow] = nowPs;
        rateAnchorPs[flow] = nowPs;
        eligiblePs[flow] = nowPs;
        belowLine[flow] = false;
    }

    /** {@code flow} starts a packet of {@code wireBytes} at {@code nowPs}; returns when it may start the next. */
    public long onSend(int flow, int wireBytes, long nowPs) {
        advance(flow, nowPs);
        if (byteCounterBytes > 0) {
            bytesSinceStep[flow] += wireBytes;
            if (bytesSinceStep[flow] >= byteCounterBytes) {
                bytesSinceStep[flow] -= byteCounterBytes;
                byteCount[flow]++;
                if (rc[flow] < line[flow]) {
                    long t = timerCount[flow];
                    long b = byteCount[flow];
                    double inc = Math.max(t, b) <= f ? 0 : Math.min(t, b) > f ? (Math.min(t, b) - f) * rhai : rai;
                    increase(flow, 1, inc, 0);
                }
            }
        }
        belowLine[flow] = rc[flow] < line[flow];
        long gap = belowLine[flow] ? (long) Math.ceil(wireBytes * PS_BITS_PER_SECOND / rc[flow])
                : wireBytes * linePsPerByte[flow];
        eligiblePs[flow] = nowPs + gap;
        return eligiblePs[flow];
    }

    /** A CNP for {@code flow} reached its sender at {@code nowPs}: cut the rate. */
    public void onCnp(int flow, long nowPs) {
        advance(flow, nowPs);
        rt[flow] = rc[flow];
        rc[flow] = Math.max(rc[flow] * (1 - alpha[flow] / 2), minRate);
        alpha[flow] = (1 - g) * alpha[flow] + g;
        timerCount[flow] = 0;
        byteCount[flow] = 0;
        bytesSinceStep[flow] = 0;
        alphaAnchorPs[flow] = nowPs;
        rateAnchorPs[flow] = nowPs;
        cuts++;
    }

    /** When {@code flow} may start its next packet. */
    public long eligiblePs(int flow) {
        return eligiblePs[flow];
    }

    /**
     * Whether {@code flow}'s last packet was paced below line rate. If not, it may send again when that packet's
     * serialization ends, and its NIC port is busy until then, so the NIC can keep it in the round-robin.
     */
    public boolean pacedBelowLine(int flow) {
        return belowLine[flow];
    }

    /** RC as of the QP's last send or CNP, b/s (reading it does not advance the timers). */
    public double rateBitsPerSecond(int flow) {
        return rc[flow];
    }

    /** RT as of the QP's last send or CNP, b/s. */
    double targetBitsPerSecond(int flow) {
        return rt[flow];
    }

    /** α as of the QP's last send or CNP. */
    double alpha(int flow) {
        return alpha[flow];
    }

    /** CNPs received (rate cuts) over all QPs. */
    public long cuts() {
        return cuts;
    }

    /** Applies the α and rate timer periods that ended at or before {@code nowPs}. */
    private void advance(int flow, long nowPs) {
        long n = (nowPs - alphaAnchorPs[flow]) / alphaTimerPs;
        if (n > 0) {
            alpha[flow] *= Math.pow(1 - g, n);
            alphaAnchorPs[flow] += n * alphaTimerPs;
        }
        long m = (nowPs - rateAnchorPs[flow]) / rateTimerPs;
        if (m > 0) {
            rateAnchorPs[flow] += m * rateTimerPs;
            timerSteps(flow, m);
        }
    }

    /** {@code m} rate timer steps, a phase (one increase rule) at a time; the byte count is fixed meanwhile. */
    private void timerSteps(int flow, long m) {
        long b = byteCount[flow];
        while (m > 0 && rc[flow] < line[flow]) {
            long t = timerCount[flow]; // step j of this phase has count t + j
            long steps;
            double p;
            double q = 0;
            if (t + 1 <= f && b <= f) { // fast recovery
                steps = Math.min(m, f - t);
                p = 0;
            } else if (t + 1 > f && b > f) { // hyper increase by (min(t + j, b) − F)·RHAI
                if (t + 1 <= b) {
                    steps = Math.min(m, b - t);
                    p = (t - f) * rhai;
                    q = rhai;
                } else {
                    steps = m;
                    p = (b - f) * rhai;
                }
            } else { // additive increase, until the timer count passes F if the byte count already has
                steps = b > f ? Math.min(m, f - t) : m;
                p = rai;
            }
            increase(flow, steps, p, q);
            timerCount[flow] += steps;
            m -= steps;
        }
        timerCount[flow] += m; // at line rate a step only counts
    }

    /**
     * {@code steps} increase steps whose target increments are p + q·j (j = 1 .. steps); once RC reaches line rate it
     * is capped there and the later steps change nothing.
     */
    private void increase(int flow, long steps, double p, double q) {
        double rt0 = rt[flow];
        double d0 = rt0 - rc[flow];
        double rcEnd = rcAfter(rt0, d0, steps, p, q);
        if (rcEnd < line[flow]) {
            rt[flow] = rtAfter(rt0, steps, p, q);
            rc[flow] = rcEnd;
            return;
        }
        long lo = 1;
        long hi = steps;
        while (lo < hi) { // the first step at which RC reaches line rate (RC never falls during increases)
            long mid = (lo + hi) >>> 1;
            if (rcAfter(rt0, d0, mid, p, q) >= line[flow]) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        rt[flow] = rtAfter(rt0, lo, p, q);
        rc[flow] = line[flow];
    }

    static double rtAfter(double rt0, long j, double p, double q) {
        return rt0 + p * j + q * ((double) j * (j + 1) / 2);
    }

    /** RC after j steps: RT_j − ((p − q) + q·j + (RT_0 − RC_0 − p + q)/2^j). */
    static double rcAfter(double rt0, double d0, long j, double p, double q) {
        double base = p - q;
        double halving = Math.scalb(1.0, (int) -Math.min(j, 2000));
        return rtAfter(rt0, j, p, q) - (base + q * j + (d0 - base) * halving);
    }
}
