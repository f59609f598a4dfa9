package io.reactorrdma.verbs.work.tracking;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The queue pairs on a hardware completion queue or protection domain that are not destroyed yet. Closing a queue pair
 * hands its destruction to the CM thread (I/O threads close queue pairs and must not wait for the kernel), so a queue or
 * domain closed right after its queue pairs waits here for their teardown: rdma-core refuses to destroy a queue or a
 * domain a queue pair still uses (EBUSY), and a driver may still write flushes into the queue until the queue pair is
 * gone. One whose queue pairs were never closed is refused at once, with what to do.
 */
public final class QueuePairUsers {

    private final String what;
    private int attached;
    private int closing;

    /** For the object named {@code what} ("completion queue", "protection domain") in its messages. */
    public QueuePairUsers(String what) {
        this.what = what;
    }

    /** A queue pair on it was created (on the device). */
    public synchronized void attached() {
        attached++;
    }

    /** A queue pair {@link #attached} was given up before it was complete (a failed create): it never closes. */
    public synchronized void abandoned() {
        attached--;
        notifyAll();
    }

    /** That queue pair's close began: its teardown will {@link #released} it. */
    public synchronized void closing() {
        closing++;
    }

    /** That closing queue pair is destroyed, or its destruction was given up (the CM thread could not run it). */
    public synchronized void released() {
        attached--;
        closing--;
        notifyAll();
    }

    /** How many are not destroyed yet. */
    public synchronized int count() {
        return attached;
    }

    /**
     * As {@link #awaitReleased}, failing when the teardown does not end in time.
     *
     * @throws IllegalStateException when a queue pair on it was never closed, at once, or when some are still being
     *                               destroyed after {@code timeout}
     */
    public void awaitReleasedOrFail(Duration timeout) {
        if (!awaitReleased(timeout)) {
            throw new IllegalStateException(what + "'s " + count() + " queue pairs are still being destroyed after "
                    + timeout.toSeconds() + " s (their teardown runs on the connection manager's thread); close it again later");
        }
    }

    /**
     * As {@link #awaitReleased}, for a close that {@code closing} lets through once: when a queue pair on it was never
     * closed, the gate opens again before the refusal, so the object stays usable and a later close can go on.
     */
    public boolean awaitReleasedOrReopen(AtomicBoolean closing, Duration timeout) {
        try {
            return awaitReleased(timeout);
        } catch (IllegalStateException notClosed) {
            closing.set(false);
            throw notClosed;
        }
    }

    /**
     * Waits up to {@code timeout} for every queue pair to be destroyed.
     *
     * @return false when some are still being destroyed after it (the caller then leaves its native object)
     * @throws IllegalStateException when a queue pair on it was never closed, at once
     */
    public synchronized boolean awaitReleased(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (attached > 0) {
            if (attached > closing) {
                throw new IllegalStateException(what + " still has queue pairs that were not closed; close them first");
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                wait(left / 1_000_000L, (int) (left % 1_000_000L));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
