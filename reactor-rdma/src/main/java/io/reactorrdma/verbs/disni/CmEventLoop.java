package io.reactorrdma.verbs.disni;

import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import io.reactorrdma.verbs.VerbsException;

import java.io.IOException;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The one thread that talks to a context's rdma_cm event channel. DiSNI keeps the channel's ids
 * in an unsynchronised map that both {@code createId} and {@code getCmEvent} touch, so every CM
 * call runs here ({@link #call}); between calls the thread waits for events in short slices and
 * hands each to the handler registered for its id. Connection setup only — never the data path.
 */
final class CmEventLoop implements AutoCloseable {

    /** Receives a CM event on the loop thread; {@code connId} is the id the event is about. */
    @FunctionalInterface
    interface Handler {
        void onEvent(int event, RdmaCmId connId);
    }

    /** How long one {@code rdma_get_cm_event} wait lasts before queued calls run. */
    static final int SLICE_MILLIS = 10;

    private final RdmaEventChannel channel;
    private final Thread thread;
    private final ConcurrentLinkedQueue<FutureTask<?>> calls = new ConcurrentLinkedQueue<>();
    private final Map<RdmaCmId, Handler> handlers = new IdentityHashMap<>();
    private volatile boolean running = true;
    private volatile Throwable failure;

    CmEventLoop(RdmaEventChannel channel, String name) {
        this.channel = channel;
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Runs {@code c} on the loop thread and returns its result; native IOExceptions become {@link VerbsException}s. */
    <T> T call(String what, Duration timeout, Callable<T> c) {
        if (Thread.currentThread() == thread) {
            try {
                return c.call();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new VerbsException(what + " failed: " + e.getMessage(), e);
            }
        }
        if (!running) {
            throw new VerbsException(what + ": the disni context is closed");
        }
        FutureTask<T> task = new FutureTask<>(c);
        calls.add(task);
        try {
            return task.get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerbsException(what + " interrupted", e);
        } catch (TimeoutException e) {
            throw new VerbsException(what + " did not finish within " + timeout + " (the rdma_cm thread is stuck"
                    + (failure != null ? ": " + failure : "") + ")", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) throw (RuntimeException) cause;
            throw new VerbsException(what + " failed: " + cause.getMessage(), cause);
        }
    }

    /** Routes the events of {@code id} (for a listening id: its connect requests) to {@code h}. Loop thread only. */
    void register(RdmaCmId id, Handler h) {
        handlers.put(id, h);
    }

    /** Loop thread only. */
    void unregister(RdmaCmId id) {
        handlers.remove(id);
    }

    private void run() {
        while (running) {
            FutureTask<?> t;
            while ((t = calls.poll()) != null) {
                t.run();
            }
            try {
                RdmaCmEvent ev = channel.getCmEvent(SLICE_MILLIS);
                if (ev != null) {
                    dispatch(ev);
                }
            } catch (IOException | RuntimeException e) {
                if (running) {
                    failure = e; // keep serving calls; the next connect reports it on timeout
                    sleepBriefly();
                }
            }
        }
        FutureTask<?> t;
        while ((t = calls.poll()) != null) {
            t.cancel(false);
        }
    }

    private void dispatch(RdmaCmEvent ev) {
        int event = ev.getEvent();
        RdmaCmId conn = ev.getConnIdPriv();
        Handler h = event == CmEvents.CONNECT_REQUEST ? handlers.get(ev.getListenIdPriv()) : handlers.get(conn);
        if (h != null) {
            h.onEvent(event, conn);
        } else if (event == CmEvents.CONNECT_REQUEST && conn != null) {
            destroyQuietly(conn); // nobody listens for it any more: refuse
        }
    }

    static void destroyQuietly(RdmaCmId id) {
        try {
            if (id.isOpen()) id.destroyId();
        } catch (IOException | RuntimeException ignored) {
            // best effort: the id is gone either way
        }
    }

    private static void sleepBriefly() {
        try {
            Thread.sleep(SLICE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the thread once queued calls ran; the caller destroys the channel afterwards. */
    @Override
    public void close() {
        running = false;
        if (Thread.currentThread() != thread) {
            try {
                thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
