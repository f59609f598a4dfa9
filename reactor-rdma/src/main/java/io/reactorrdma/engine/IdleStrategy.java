package io.reactorrdma.engine;

/** What an I/O thread does when a loop turn found nothing to do (DESIGN.md §4, thread domains). */
public enum IdleStrategy {
    /** Spin: lowest latency, one core per thread domain. */
    BUSY_SPIN,
    /**
     * Spin up to some tens of microseconds (1,000 empty loop turns), then block on completion
     * notification: a reply that comes quickly is caught spinning, an idle thread costs no CPU. The
     * spin adapts: each spin that ends in a block halves it (down to BLOCK's 50 turns), each that
     * finds work doubles it again, so traffic whose gaps outlast the spin does not burn a core for
     * nothing. It never yields: on a host with more runnable threads than cores a yielding thread
     * waits behind all of them, a woken one does not. The library's default.
     */
    BACK_OFF,
    /** Block on completion notification: no CPU while idle; a wake-up costs a few microseconds. */
    BLOCK
}
