package io.reactorrdma.engine;

import io.reactorrdma.config.IdleStrategy;

/**
 * {@link IdleStrategy#BACK_OFF}'s decision, at the start of each idle episode, whether to spin the
 * full budget before blocking or to block almost at once (after {@link IdleStrategy#BLOCK}'s short
 * spin). A full spin <em>pays</em> when it finds work soon: the thread skips a block and its wake-up,
 * and the work is handled at once. It does not pay when it runs out (the CPU went for nothing) or
 * when the work comes only after {@link #payingNanos()}: then the spinner was descheduled during its
 * spin (an oversubscribed host, where spinning takes the core from the threads that would make the
 * work), or it burned more CPU than the wake-up it saved.
 *
 * <p>The estimate is the <em>share of recent full spins that paid</em>, an exponentially weighted
 * average over about {@link #window()} spins, with hysteresis: the thread spins while the share stays
 * at or above {@link #stopBelow()}, blocks once it falls below, and spins again once it is back at
 * {@link #resumeAt()}. A few spins that run out move the share by 1/window each and cannot end spinning
 * (unlike a spin length that halves on each expiry, which shortens itself into expiring more often). While
 * blocking, one episode in {@link #probeEvery()} spins in full anyway, a probe: its outcome is what a
 * spin would give now, so the thread comes back to spinning when a core frees up. Each probe that does not
 * pay doubles the gap to the next, up to one in {@link #probeAtMost()} (on a host that stays oversubscribed
 * the probes cost next to nothing); one that pays brings it back to {@link #probeEvery()}. Episodes that do
 * not spin in full are not counted: their outcome says nothing about a full spin.
 *
 * <p>Pure and deterministic: no clock (the caller measures a spin's duration and passes it), no
 * allocation, no locks; one I/O thread owns it.
 */
final class SpinBudget {

    /** Work found later than this into a spin did not pay: longer than a blocked thread's wake-up costs. */
    static final long PAYING_NANOS = 100_000;
    /** About how many recent full spins the paying share averages over (its weight is 1/WINDOW). */
    static final int WINDOW = 64;
    /** Below this share of paying spins, spinning stops. */
    static final double STOP_BELOW = 0.4;
    /** At or above this share (measured by probes), spinning resumes. */
    static final double RESUME_AT = 0.6;
    /** While blocking, one episode in this many spins in full to measure what a spin would give... */
    static final int PROBE_EVERY = 16;
    /** ...and in at most this many, after probes that did not pay. */
    static final int PROBE_AT_MOST = 256;

    private final long payingNanos;
    private final int window;
    private final double stopBelow;
    private final double resumeAt;
    private final int probeEvery;
    private final int probeAtMost;

    /** The exponentially weighted share of recent full spins that paid; starts at 1 (spinning). */
    private double paying = 1.0;
    private boolean spinning = true;
    private int sinceProbe;
    /** Episodes from one probe to the next while blocking: probeEvery, doubled by each probe that did not pay. */
    private int probeGap;

    SpinBudget() {
        this(PAYING_NANOS, WINDOW, STOP_BELOW, RESUME_AT, PROBE_EVERY, PROBE_AT_MOST);
    }

    SpinBudget(long payingNanos, int window, double stopBelow, double resumeAt, int probeEvery, int probeAtMost) {
        if (payingNanos <= 0 || window < 1 || probeEvery < 1 || probeAtMost < probeEvery
                || !(stopBelow > 0 && stopBelow <= resumeAt && resumeAt <= 1)) {
            throw new IllegalArgumentException("spin budget: payingNanos " + payingNanos + ", window " + window
                    + ", stopBelow " + stopBelow + ", resumeAt " + resumeAt + ", probeEvery " + probeEvery
                    + ", probeAtMost " + probeAtMost);
        }
        this.payingNanos = payingNanos;
        this.window = window;
        this.stopBelow = stopBelow;
        this.resumeAt = resumeAt;
        this.probeEvery = probeEvery;
        this.probeAtMost = probeAtMost;
        this.probeGap = probeEvery;
    }

    /**
     * An idle episode begins: whether to spin the full budget (the caller then reports
     * {@link #found} or {@link #ranOut}) or to block after the short spin (nothing to report).
     */
    boolean spinInFull() {
        if (spinning) {
            return true;
        }
        if (++sinceProbe >= probeGap) {
            sinceProbe = 0;
            return true;
        }
        return false;
    }

    /** A full spin found work {@code nanos} after it began. */
    void found(long nanos) {
        record(nanos <= payingNanos);
    }

    /** A full spin ran out without finding work. */
    void ranOut() {
        record(false);
    }

    private void record(boolean paid) {
        paying += ((paid ? 1.0 : 0.0) - paying) / window;
        if (!spinning) {
            probeGap = paid ? probeEvery : Math.min(probeAtMost, 2 * probeGap); // this spin was a probe
        }
        if (spinning ? paying < stopBelow : paying >= resumeAt) {
            spinning = !spinning;
            sinceProbe = 0;
            probeGap = probeEvery;
        }
    }

    /** Whether episodes spin in full now (probes aside). */
    boolean spinning() {
        return spinning;
    }

    /** The weighted share of recent full spins that paid, 0..1. */
    double payingShare() {
        return paying;
    }

    long payingNanos() {
        return payingNanos;
    }

    int window() {
        return window;
    }

    double stopBelow() {
        return stopBelow;
    }

    double resumeAt() {
        return resumeAt;
    }

    int probeEvery() {
        return probeEvery;
    }

    int probeAtMost() {
        return probeAtMost;
    }

    /** Episodes from the last probe to the next one while blocking. */
    int probeGap() {
        return probeGap;
    }

    @Override
    public String toString() {
        return "SpinBudget{" + (spinning ? "spinning" : "blocking") + ", paying " + paying + "}";
    }
}
