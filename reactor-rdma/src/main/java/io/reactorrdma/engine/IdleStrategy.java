package io.reactorrdma.engine;

/** What an I/O thread does when a loop turn found nothing to do (DESIGN.md §4, thread domains). */
public enum IdleStrategy {
    /** Spin: lowest latency, one core per thread domain. */
    BUSY_SPIN,
    /** Spin a little, then yield, then wait up to 1 ms on completion notification: low latency under load, little CPU when idle. */
    BACK_OFF,
    /** Block on completion notification: no CPU while idle; a wake-up costs a few microseconds. */
    BLOCK
}
