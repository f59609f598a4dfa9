package io.reactorrdma.perf.verbs;

import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.verbs.CompletionQueue;
import io.reactorrdma.verbs.work.WorkCompletion;

import java.util.concurrent.TimeUnit;

/**
 * Waits for completions in one {@link PollMode}: busy polling, or the verbs notification idiom
 * (poll; requestNotification; poll again to close the race; awaitNotification). Returns 0 after an
 * idle tick so that the caller can check for a dead peer or a stop request. Allocation-free.
 */
final class CqWaiter {

    /** How long one {@link #await} waits before it returns 0. */
    static final long IDLE_TICK_NANOS = 100_000_000L;
    private static final int SPINS_PER_CLOCK_CHECK = 4096;

    private final CompletionQueue cq;
    private final PollMode mode;

    CqWaiter(CompletionQueue cq, PollMode mode) {
        if (mode == PollMode.BACK_OFF) {
            // the command line refuses it for send-lat and write-bw; back-off is the engine's policy, not this loop's
            throw new IllegalArgumentException("send-lat and write-bw poll by hand: spin or block, not back-off");
        }
        this.cq = cq;
        this.mode = mode;
    }

    /** Polls once without waiting. */
    int poll(WorkCompletion[] wcs) {
        return cq.poll(wcs, wcs.length);
    }

    /** Waits up to an idle tick for completions; returns how many were filled, 0 on an idle tick. */
    int await(WorkCompletion[] wcs) {
        return mode == PollMode.SPIN ? spin(wcs) : block(wcs);
    }

    private int spin(WorkCompletion[] wcs) {
        long start = 0;
        int spins = 0;
        while (true) {
            int n = cq.poll(wcs, wcs.length);
            if (n > 0) {
                return n;
            }
            Thread.onSpinWait();
            if (++spins == SPINS_PER_CLOCK_CHECK) {
                spins = 0;
                long now = System.nanoTime();
                if (start == 0) {
                    start = now;
                } else if (now - start > IDLE_TICK_NANOS) {
                    return 0;
                }
            }
        }
    }

    private int block(WorkCompletion[] wcs) {
        int n = cq.poll(wcs, wcs.length);
        if (n > 0) {
            return n;
        }
        cq.requestNotification();
        n = cq.poll(wcs, wcs.length);
        if (n > 0) {
            return n;
        }
        try {
            cq.awaitNotification(IDLE_TICK_NANOS, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PerfException("interrupted while waiting for a completion", e);
        }
        return cq.poll(wcs, wcs.length);
    }
}
