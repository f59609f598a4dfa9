package io.reactorrdma.verbs.disni.cm;

import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import io.reactorrdma.verbs.VerbsException;

import java.io.IOException;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The one thread that talks to a context's rdma_cm event channel. DiSNI keeps the channel's ids
 * in an unsynchronised map that both {@code createId} and {@code getCmEvent} touch, so every CM
 * call runs here: {@link #call} waits for its result (connection setup), {@link #submit} does not
 * (teardown from an I/O thread, which must never wait for this thread). Between calls the thread
 * waits for events and hands each to the handler registered for its id. Connection setup and
 * teardown only — never the data path.
 *
 * <p>How it waits: libdisni's {@code getCmEvent(timeout)} is {@code poll(2)} on the channel's fd
 * followed by {@code rdma_get_cm_event}, and DiSNI offers no way to wake that poll from another
 * thread (the channel object does not even carry the fd). So the thread blocks for
 * {@link #IDLE_WAIT_MILLIS} when nothing happens, and for {@link #BUSY_WAIT_MILLIS} while a
 * connection is being set up or torn down — from a call or an event until {@link #LINGER_MILLIS}
 * after the last one, and as soon as {@link #wake} announces work — so the calls of a setup
 * (each queued right after the event it waited for) run within about a millisecond.
 */
public final class CmEventLoop implements AutoCloseable {

    /** Bound on one rdma_cm call (resolve, connect, accept, destroy) queued to the CM thread. */
    public static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    /** Receives a CM event on the loop thread; {@code connId} is the id the event is about. */
    @FunctionalInterface
    public interface Handler {
        void onEvent(int event, RdmaCmId connId);
    }

    /** Where the loop waits for events: the rdma_cm event channel on hardware, a fake in tests. */
    @FunctionalInterface
    public interface EventSource {
        /** Waits up to {@code timeoutMillis} for one event and passes it to {@code sink}; false when none came. */
        boolean await(int timeoutMillis, EventSink sink) throws IOException;
    }

    /** What an event is about: its type, the listening id (connect requests only, else null) and its id. */
    @FunctionalInterface
    public interface EventSink {
        void dispatch(int event, RdmaCmId listenId, RdmaCmId connId);
    }

    /** How long one event wait lasts while nothing is going on: bounds how late a call queued then runs. */
    public static final int IDLE_WAIT_MILLIS = 20;
    /** How long one event wait lasts while connections are being set up or torn down. */
    public static final int BUSY_WAIT_MILLIS = 1;
    /** How long after the last call or event the loop keeps waiting in busy slices. */
    static final int LINGER_MILLIS = 250;

    private final EventSource source;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Runnable> calls = new ConcurrentLinkedQueue<>();
    private final Map<RdmaCmId, Handler> handlers = new IdentityHashMap<>();
    private volatile boolean running = true;
    private volatile long busyUntil;
    private volatile Throwable failure;

    public CmEventLoop(RdmaEventChannel channel, String name) {
        this(channelSource(channel), name);
    }

    public CmEventLoop(EventSource source, String name) {
        this.source = source;
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    static EventSource channelSource(RdmaEventChannel channel) {
        return (timeout, sink) -> {
            RdmaCmEvent ev = channel.getCmEvent(timeout);
            if (ev == null) {
                return false;
            }
            sink.dispatch(ev.getEvent(), ev.getListenIdPriv(), ev.getConnIdPriv());
            return true;
        };
    }

    /** Runs {@code c} on the loop thread and returns its result; native IOExceptions become {@link VerbsException}s. */
    public <T> T call(String what, Duration timeout, Callable<T> c) {
        CompletableFuture<T> f = submit(what, c);
        try {
            return f.get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerbsException(what + " interrupted", e);
        } catch (TimeoutException e) {
            throw new VerbsException(what + " did not finish within " + timeout + " (the rdma_cm thread is stuck"
                    + (failure != null ? ": " + failure : "") + ")", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new VerbsException(what + " failed: " + cause.getMessage(), cause);
        }
    }

    /**
     * Queues {@code c} for the loop thread and returns at once (on the loop thread itself: runs it
     * now). The future completes with its result, or with a {@link VerbsException} naming
     * {@code what}; once the loop is closed it fails at once.
     */
    public <T> CompletableFuture<T> submit(String what, Callable<T> c) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Runnable task = () -> {
            try {
                f.complete(c.call());
            } catch (RuntimeException e) {
                f.completeExceptionally(e);
            } catch (Exception e) {
                f.completeExceptionally(new VerbsException(what + " failed: " + e.getMessage(), e));
            } catch (Error e) {
                f.completeExceptionally(e);
                throw e;
            }
        };
        if (Thread.currentThread() == thread) {
            task.run();
            return f;
        }
        if (!running) {
            f.completeExceptionally(new VerbsException(what + ": the disni context is closed"));
            return f;
        }
        wake();
        calls.add(task);
        if (!running && calls.remove(task)) { // closed meanwhile, and the thread did not take it
            f.completeExceptionally(new VerbsException(what + ": the disni context is closed"));
        }
        return f;
    }

    /** Announces CM work (a connection about to be set up): the next event waits are short. */
    public void wake() {
        busyUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LINGER_MILLIS);
    }

    /** Routes the events of {@code id} (for a listening id: its connect requests and its own events) to {@code h}. Loop thread only. */
    public void register(RdmaCmId id, Handler h) {
        handlers.put(id, h);
    }

    /** Loop thread only. */
    public void unregister(RdmaCmId id) {
        handlers.remove(id);
    }

    /** The next event wait: short while CM work is going on, else {@link #IDLE_WAIT_MILLIS}. */
    public int nextWaitMillis() {
        return !calls.isEmpty() || System.nanoTime() - busyUntil < 0 ? BUSY_WAIT_MILLIS : IDLE_WAIT_MILLIS;
    }

    private void run() {
        while (running) {
            runQueued();
            try {
                if (source.await(nextWaitMillis(), this::dispatch)) {
                    wake();
                }
            } catch (IOException | RuntimeException e) {
                if (running) {
                    failure = e; // keep serving calls; the next connect reports it on timeout
                    sleepBriefly();
                }
            }
        }
        runQueued(); // teardown queued before close still runs (close() waits for it)
    }

    private void runQueued() {
        Runnable t;
        boolean ran = false;
        while ((t = calls.poll()) != null) {
            t.run();
            ran = true;
        }
        if (ran) {
            wake();
        }
    }

    private void dispatch(int event, RdmaCmId listenId, RdmaCmId conn) {
        Handler h = event == CmEvents.CONNECT_REQUEST ? handlers.get(listenId) : handlers.get(conn);
        if (h != null) {
            h.onEvent(event, conn);
        } else if (event == CmEvents.CONNECT_REQUEST && conn != null) {
            destroyQuietly(conn); // nobody listens for it any more: refuse
        }
    }

    public static void destroyQuietly(RdmaCmId id) {
        try {
            if (id.isOpen()) {
                id.destroyId();
            }
        } catch (IOException | RuntimeException ignored) {
            // best effort: the id is gone either way
        }
    }

    private static void sleepBriefly() {
        try {
            Thread.sleep(IDLE_WAIT_MILLIS);
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
