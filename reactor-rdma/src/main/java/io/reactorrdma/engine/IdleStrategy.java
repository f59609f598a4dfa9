package io.reactorrdma.engine;

/** What an I/O thread does when a loop turn found nothing to do (DESIGN.md §4, thread domains). */
public enum IdleStrategy {
    /** Spin: lowest latency, one core per thread domain. */
    BUSY_SPIN,
    /**
     * Spin for some tens of microseconds, then block on completion notification: a reply that comes
     * quickly is caught spinning, an idle thread costs no CPU. It never yields: on a host with more
     * runnable threads than cores a yielding thread waits behind all of them, a woken one does not.
     */
    BACK_OFF,
    /** Block on completion notification: no CPU while idle; a wake-up costs a few microseconds. */
    BLOCK
}
