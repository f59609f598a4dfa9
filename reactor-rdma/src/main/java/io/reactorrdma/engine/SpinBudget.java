package io.reactorrdma.engine;

import io.reactorrdma.config.IdleStrategy;

/**
 * {@link IdleStrategy#BACK_OFF}'s decision, at the start of each idle episode, whether to spin the
 * full budget before blocking or to block almost at once (after {@link IdleStrategy#BLOCK}'s short
 * spin). A full spin <em>pays</em> when what it saved is worth what it burned:
 * <ul>
 *   <li>work found within {@link #cheapNanos()} always pays: the spin cost less CPU than a block and its
 *       wake-up;</li>
 *   <li>work found later pays only when it is the next step of a <em>conversation</em> (the caller says so:
 *       an answer from the peer this thread sent to last, work another thread handed over, or work that made it
 *       send) and came within {@link #payingNanos()}: then the spin took a wake-up off a round trip that someone
 *       waits for, and a stream or a request-response whose two ends block would each wait for the other's
 *       wake-up;</li>
 *   <li>anything else did not pay: work from some other peer after the cheap window (a fan-out's replies,
 *       tens of microseconds apart, each of which a block would take for a tenth of the spin's CPU), work
 *       after {@link #payingNanos()} (the spinner was descheduled during its spin: an oversubscribed host,
 *       where spinning takes the core from the threads that would make the work), or a spin that ran out.</li>
 * </ul>
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

    /** The next step of a conversation found later than this did not pay: longer than a blocked thread's wake-up takes. */
    static final long PAYING_NANOS = 100_000;
    /**
     * Any work found within this paid: about the CPU a block and its wake-up cost (the futex or eventfd calls,
     * the two context switches, the scheduler), some 10 µs on the hosts measured.
     */
    static final long CHEAP_NANOS = 10_000;
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
    private final long cheapNanos;
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
        this(PAYING_NANOS, CHEAP_NANOS, WINDOW, STOP_BELOW, RESUME_AT, PROBE_EVERY, PROBE_AT_MOST);
    }

    SpinBudget(long payingNanos, long cheapNanos, int window, double stopBelow, double resumeAt, int probeEvery,
            int probeAtMost) {
        if (payingNanos <= 0 || cheapNanos < 0 || cheapNanos > payingNanos || window < 1 || probeEvery < 1
                || probeAtMost < probeEvery
                || !(stopBelow > 0 && stopBelow <= resumeAt && resumeAt <= 1)) {
            throw new IllegalArgumentException("spin budget: payingNanos " + payingNanos + ", cheapNanos " + cheapNanos
                    + ", window " + window
                    + ", stopBelow " + stopBelow + ", resumeAt " + resumeAt + ", probeEvery " + probeEvery
                    + ", probeAtMost " + probeAtMost);
        }
        this.payingNanos = payingNanos;
        this.cheapNanos = cheapNanos;
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

    /**
     * A full spin found work {@code nanos} after it began; {@code conversation}: the work was the next step of
     * a conversation (see the class comment). Returns whether the spin paid.
     */
    boolean found(long nanos, boolean conversation) {
        boolean paid = pays(nanos, conversation);
        record(paid);
        return paid;
    }

    /** Whether a spin that found work {@code nanos} after it began paid. */
    boolean pays(long nanos, boolean conversation) {
        return nanos <= cheapNanos || conversation && nanos <= payingNanos;
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

    long cheapNanos() {
        return cheapNanos;
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
