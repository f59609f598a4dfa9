package io.reactorrdma.verbs.soft;

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
    private final AtomicLong held = new AtomicLong();
    /** Queue pairs holding completions back; release() hands them to their send queues. */
    private final List<SoftQueuePair> holders = new ArrayList<>();

    /** Holds back the completions of every later READ (and those after it on its queue pair) until {@link #release()}. */
    public void hold() {
        holding = true;
    }

    /** Ends the hold: the completions held back are written now, in order, and an armed queue is woken. */
    public void release() {
        List<SoftQueuePair> qps;
        synchronized (this) {
            holding = false;
            qps = new ArrayList<>(holders);
            holders.clear();
        }
        for (SoftQueuePair qp : qps) {
            qp.releaseHeldCompletions(); // runs its send queue now, or its current runner does before it stops
        }
    }

    /** READ completions held back now (written, not yet released). */
    public long held() {
        return held.get();
    }

    boolean holding() {
        return holding;
    }

    /** Send-queue owner: {@code qp} started holding completions back. */
    synchronized void holdsFor(SoftQueuePair qp) {
        holders.add(qp);
    }

    void countHeld(int delta) {
        held.addAndGet(delta);
    }

    @Override
    public String toString() {
        return "ReadCompletionFault{" + (holding ? "holding" : "released") + ", held=" + held.get() + "}";
    }
}
