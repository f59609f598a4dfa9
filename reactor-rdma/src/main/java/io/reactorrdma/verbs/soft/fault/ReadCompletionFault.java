package io.reactorrdma.verbs.soft.fault;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A test's switch that holds back the completions of RDMA READs of the context it is configured on
 * ({@link SoftFaults#withReadCompletionFault}), as an RNIC's READ completes only once the response
 * crossed the wire, while the soft provider runs it within {@code postSend}. While it
 * {@link #hold holds}, a READ's data is copied as usual but its completion is not written, nor
 * is any later completion of the same send queue (an RC send queue completes in order); the READ
 * counts as outstanding (strict mode's maxRdAtomic). {@link #release()} writes them all, in order,
 * and wakes an armed completion queue once per queue pair. Thread-safe.
 */
public final class ReadCompletionFault {

    private volatile boolean holding;
    /** While holding: every send completion is held, not only from a READ on (an RNIC's ACK timing for any request). */
    private volatile boolean everySend;
    private final AtomicLong held = new AtomicLong();
    private final AtomicLong heldCompletions = new AtomicLong();
    /**
     * Calls of {@link #release()} so far. A queue pair whose hold began before the latest release
     * pushes its completions even if a new hold started since: a release that found the send
     * queue run by another thread leaves the push to that thread, which may look only after the
     * test held again.
     */
    private final AtomicLong releases = new AtomicLong();
    /** Tests: run on the send queue's thread each time a completion is held back (a racing point). */
    private volatile Runnable onHeld;
    /** What each queue pair holding completions back runs to push them; release() runs them all. */
    private final List<Runnable> holders = new ArrayList<>();

    /** Holds back the completions of every later READ (and those after it on its queue pair) until {@link #release()}. */
    public void hold() {
        everySend = false;
        holding = true;
    }

    /**
     * Holds back every later send completion (SEND, WRITE and READ alike) until {@link #release()}:
     * an RNIC completes a request only once the peer acknowledged it, so an I/O thread may block
     * before its own send completions arrive; {@link #release()} then writes them and wakes an
     * armed queue as their arrival would (a successful send completion raises a full arm only).
     */
    public void holdEverySend() {
        everySend = true;
        holding = true;
    }

    /** Ends the hold: the completions held back are written now, in order, and an armed queue is woken. */
    public void release() {
        List<Runnable> qps;
        synchronized (this) {
            releases.incrementAndGet();
            holding = false;
            qps = new ArrayList<>(holders);
            holders.clear();
        }
        for (Runnable releaseHeldCompletions : qps) {
            releaseHeldCompletions.run(); // runs its send queue now, or its current runner does before it stops
        }
    }

    /**
     * Runs {@code action} on the thread that runs a send queue, each time it holds a completion
     * back (null: none): a test's racing point inside a post, e.g. a release while the queue runs.
     */
    public void onEachHeld(Runnable action) {
        onHeld = action;
    }

    /** Send-queue requests of any opcode whose completion is held back now (READs and what follows them). */
    public long heldCompletions() {
        return heldCompletions.get();
    }

    public void countHeldCompletions(int delta) {
        heldCompletions.addAndGet(delta);
    }

    public long releases() {
        return releases.get();
    }

    /** Send-queue owner: a completion was just held back. */
    public void completionHeld() {
        Runnable action = onHeld;
        if (action != null) {
            action.run();
        }
    }

    /** READ completions held back now (written, not yet released). */
    public long held() {
        return held.get();
    }

    public boolean holding() {
        return holding;
    }

    public boolean holdsEverySend() {
        return everySend;
    }

    /**
     * Send-queue owner: a queue pair started holding completions back; {@link #release()} runs
     * {@code releaseHeldCompletions}, which writes them (or leaves it to the send queue's runner).
     */
    public synchronized void holdsFor(Runnable releaseHeldCompletions) {
        holders.add(releaseHeldCompletions);
    }

    public void countHeld(int delta) {
        held.addAndGet(delta);
    }

    @Override
    public String toString() {
        return "ReadCompletionFault{" + (holding ? "holding" : "released") + ", held=" + held.get() + "}";
    }
}
