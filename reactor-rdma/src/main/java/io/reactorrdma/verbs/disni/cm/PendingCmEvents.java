package io.reactorrdma.verbs.disni.cm;

import com.ibm.disni.verbs.RdmaCmId;
import io.reactorrdma.verbs.VerbsException;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The CM events of a cm id while its connection is being set up: the CM thread queues them
 * ({@link #onEvent}), the connecting thread waits for each expected one ({@link #await}), and once
 * the connection exists {@link #handOver} passes on whatever came after {@code ESTABLISHED} — a
 * {@code DISCONNECTED} that arrives between {@code ESTABLISHED} and the connection taking over its
 * id's events must not be lost, or the connection would never learn that it ended.
 */
public final class PendingCmEvents implements CmEventLoop.Handler {

    private final BlockingQueue<Integer> events = new LinkedBlockingQueue<>();

    /** CM thread. */
    @Override
    public void onEvent(int event, RdmaCmId connId) {
        events.offer(event);
    }

    /** Waits for {@code expected}; any other event is the failure it names. */
    public void await(int expected, long deadline, String peer) {
        Integer ev;
        try {
            ev = events.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerbsException("interrupted while waiting for " + CmEvents.name(expected) + " from " + peer, e);
        }
        if (ev == null) {
            throw new VerbsException("timed out waiting for " + CmEvents.name(expected) + " from " + peer);
        }
        if (ev != expected) {
            throw new VerbsException(CmEvents.failure(ev, expected, peer));
        }
    }

    /**
     * CM thread, right after {@code next} was registered for {@code id}: gives {@code next} the
     * events that arrived since the last {@link #await}, in order. No event can slip between the
     * two, because the CM thread both dispatches events and runs this.
     */
    public void handOver(RdmaCmId id, CmEventLoop.Handler next) {
        Integer ev;
        while ((ev = events.poll()) != null) {
            next.onEvent(ev, id);
        }
    }
}
