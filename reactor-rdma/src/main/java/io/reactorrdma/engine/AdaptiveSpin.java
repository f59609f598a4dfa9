package io.reactorrdma.engine;

/**
 * How many empty loop turns {@link IdleStrategy#BACK_OFF} spins before it blocks, adapted to whether
 * spinning pays: a spin that found work doubles the budget (up to {@link #MAX_TURNS}), a spin that
 * ran out and blocked halves it (down to {@link #MIN_TURNS}). A ping-pong whose replies come within
 * the spin keeps the whole budget and its spin-mode latency; traffic whose gaps outlast the spin (a
 * fan-out to many peers, several processes on few cores) stops burning a core per I/O thread for
 * nothing and behaves like {@link IdleStrategy#BLOCK}. One I/O thread's state: plain fields, no
 * allocation.
 */
final class AdaptiveSpin {

    /** The most empty turns spun before blocking: about 70 µs on the 2-core build machine (~70 ns a turn). */
    static final int MAX_TURNS = 1000;
    /** The fewest: what {@link IdleStrategy#BLOCK} spins, just enough to skip arming for a near-miss. */
    static final int MIN_TURNS = 50;

    private int budget = MAX_TURNS;

    /** Empty turns to spin before blocking now. */
    int budget() {
        return budget;
    }

    /** The spin found work before its budget ran out. */
    void paidOff() {
        budget = Math.min(MAX_TURNS, budget << 1);
    }

    /** The spin ran out of budget: the thread blocks. */
    void expired() {
        budget = Math.max(MIN_TURNS, budget >> 1);
    }
}
