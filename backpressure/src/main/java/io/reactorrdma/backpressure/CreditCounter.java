package io.reactorrdma.backpressure;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The sender's view of its peer's receive credits (paper §5.4.2): one credit is one
 * receive buffer the peer has posted and not yet seen consumed. A SEND or WRITE_WITH_IMM costs one
 * credit; a plain WRITE costs none; without a credit the sender waits.
 *
 * <p>The count starts at the initial credits the peers exchanged at connection setup (the peer's
 * receive-queue depth), goes down as messages are posted and up as the peer returns credits
 * (piggybacked on its traffic or in a credit message). It never goes below zero — a failed acquire
 * takes nothing — and never above the initial count: a peer that returns more credits than were
 * taken has broken the protocol, and {@link #release(int)} says so with an
 * {@link IllegalStateException} for the engine to turn into a connection error.
 *
 * <p><b>Control reserve.</b> The last {@code reserved} credits are kept for control messages
 * (credit updates, heartbeats, close): {@link #tryAcquireData} never takes them and
 * {@link #tryAcquireControl} may. So data can never use up the credits a credit update needs, and
 * the credit loop between two peers can never starve itself.
 *
 * <p><b>Learning that credits came back.</b> A sender that found no credit registers a listener
 * with {@link #onCreditsReturned(Runnable)}; it runs on the thread that calls {@link #release} (the
 * engine's I/O thread, as it parses the peer's credits), after the credits are available — typically
 * {@code credits.onCreditsReturned(gated::capacityAvailable)}.
 *
 * <p>Thread-safe and lock-free: every operation is a compare-and-set on one {@code int};
 * nothing allocates.
 */
public final class CreditCounter {

    private final int initialCredits;
    private final int reserved;
    private final AtomicInteger available;
    private volatile Runnable returnListener;

    /**
     * @param initialCredits     the credits exchanged at connection setup (the peer's receive-queue
     *                           depth), at least 1
     * @param reservedForControl how many of them data may never take, so control messages always
     *                           find one; at least 0 and less than {@code initialCredits}
     */
    public CreditCounter(int initialCredits, int reservedForControl) {
        if (initialCredits < 1) {
            throw new IllegalArgumentException("initialCredits must be at least 1, was " + initialCredits);
        }
        if (reservedForControl < 0 || reservedForControl >= initialCredits) {
            throw new IllegalArgumentException("reservedForControl must be in [0, " + initialCredits
                    + ") so that data can ever be sent, was " + reservedForControl);
        }
        this.initialCredits = initialCredits;
        this.reserved = reservedForControl;
        this.available = new AtomicInteger(initialCredits);
    }

    /** Takes one credit for a data message; same as {@link #tryAcquireData()}. */
    public boolean tryAcquire() {
        return tryAcquireData(1);
    }

    /** Takes {@code n} credits for data messages; same as {@link #tryAcquireData(int)}. */
    public boolean tryAcquire(int n) {
        return tryAcquireData(n);
    }

    /** Takes one credit for a data message, leaving the control reserve untouched. */
    public boolean tryAcquireData() {
        return tryAcquireData(1);
    }

    /**
     * Takes {@code n} credits for data messages, all or none, never dipping into the control
     * reserve.
     *
     * @return true when the credits were taken; false (nothing taken) when fewer than
     *         {@code n} + reserve were available. {@code n == 0} takes nothing and returns true.
     * @throws IllegalArgumentException when {@code n} is negative or could never be granted
     *                                  (more than the initial credits less the reserve)
     */
    public boolean tryAcquireData(int n) {
        checkDataRequest(n);
        for (;;) {
            int a = available.get();
            if (a - n < reserved) {
                return false;
            }
            if (available.compareAndSet(a, a - n)) {
                return true;
            }
        }
    }

    /**
     * Takes as many data credits as are available outside the reserve, up to {@code max}: for an
     * engine that fills a batch of work requests at once.
     *
     * @return the number taken, 0 to {@code max}
     * @throws IllegalArgumentException when {@code max} is negative
     */
    public int tryAcquireUpTo(int max) {
        if (max < 0) {
            throw new IllegalArgumentException("credits to acquire must not be negative, was " + max);
        }
        for (;;) {
            int a = available.get();
            int n = Math.min(max, a - reserved);
            if (n <= 0) {
                return 0;
            }
            if (available.compareAndSet(a, a - n)) {
                return n;
            }
        }
    }

    /**
     * Takes one credit for a control message (credit update, heartbeat, close); it may use the
     * reserve.
     *
     * @return false (nothing taken) when no credit at all is available
     */
    public boolean tryAcquireControl() {
        for (;;) {
            int a = available.get();
            if (a < 1) {
                return false;
            }
            if (available.compareAndSet(a, a - 1)) {
                return true;
            }
        }
    }

    /**
     * Returns {@code n} credits the peer granted back, then runs the listener (if any and if
     * {@code n > 0}) on this thread.
     *
     * @throws IllegalArgumentException when {@code n} is negative
     * @throws IllegalStateException    when the peer returns more credits than were taken (the count
     *                                  would exceed the initial credits): a protocol error; nothing
     *                                  is returned
     */
    public void release(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("credits to release must not be negative, was " + n);
        }
        if (n == 0) {
            return;
        }
        for (;;) {
            int a = available.get();
            if (n > initialCredits - a) {
                throw new IllegalStateException("credit over-release: returning " + n + " credits with "
                        + a + " of " + initialCredits + " available would exceed the initial credits"
                        + " (the peer granted more credits than its receive-queue depth)");
            }
            if (available.compareAndSet(a, a + n)) {
                break;
            }
        }
        Runnable l = returnListener;
        if (l != null) {
            l.run();
        }
    }

    /**
     * Sets what runs after every {@link #release} of at least one credit, on the releasing thread;
     * {@code null} removes it. The listener must be quick and must not throw (an exception reaches
     * the caller of {@code release}, after the credits were returned).
     */
    public void onCreditsReturned(Runnable listener) {
        this.returnListener = listener;
    }

    /** Credits available now, the control reserve included. */
    public int available() {
        return available.get();
    }

    /** Credits available now to data messages: {@code available() - reserved()}, at least 0. */
    public int availableForData() {
        return Math.max(0, available.get() - reserved);
    }

    /** Credits taken and not yet returned by the peer. */
    public int inUse() {
        return initialCredits - available.get();
    }

    /** The credits exchanged at connection setup; the count never exceeds it. */
    public int initialCredits() {
        return initialCredits;
    }

    /** How many credits only control messages may take. */
    public int reserved() {
        return reserved;
    }

    private void checkDataRequest(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("credits to acquire must not be negative, was " + n);
        }
        if (n > initialCredits - reserved) {
            throw new IllegalArgumentException("asked for " + n + " data credits at once, but the peer granted "
                    + initialCredits + " of which " + reserved + " are reserved for control: it could never succeed");
        }
    }

    @Override
    public String toString() {
        return "CreditCounter[available=" + available.get() + "/" + initialCredits + ", reserved=" + reserved + "]";
    }
}
