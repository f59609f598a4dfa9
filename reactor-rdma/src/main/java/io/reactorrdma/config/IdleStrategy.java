package io.reactorrdma.config;

/** What an I/O thread does when a loop turn found nothing to do. */
public enum IdleStrategy {
    /** Spin: lowest latency, one core per thread domain. */
    BUSY_SPIN,
    /**
     * Spin for some tens of microseconds (1,000 empty loop turns), then block on completion
     * notification, <em>while spinning pays</em>: a reply that comes quickly is caught spinning, an idle
     * thread costs no CPU. A spin pays when it finds any work within 10 µs (less CPU than a block and its
     * wake-up), or, within 100 µs, the next step of a conversation: an answer from the peer the thread sent to
     * last, work another thread handed over, or work that made the thread send (a server answering a request,
     * from whichever client): a request-response or a stream, whose two ends would otherwise each wait for the
     * other's wake-up. A fan-out's replies from other peers, tens of microseconds apart, do not pay, as long as
     * they are not answered at once ({@link #BUSY_SPIN} keeps the spin there); nor does a spin that runs out, or
     * finds work only after 100 µs (its thread was descheduled: more runnable threads than cores). The thread
     * keeps the share of its recent full spins that paid (a weighted average over about 64 of them): it
     * spins in full while the share is at least 40 %, and below that blocks after {@link #BLOCK}'s short
     * spin, as BLOCK does, with one probe (a full spin) in every 16 to 256 idle episodes; it spins again
     * once probes bring the share back to 60 %. A few spins that run out do not stop it: the spin never
     * shortens. {@code rdma.idle.spins}, {@code rdma.idle.spins.paid} and {@code rdma.idle.spins.skipped}
     * count its choices. It never yields: on a host with more runnable threads than cores a yielding
     * thread waits behind all of them, a woken one does not.
     */
    BACK_OFF,
    /** Block on completion notification: no CPU while idle; a wake-up costs a few microseconds. */
    BLOCK
}
