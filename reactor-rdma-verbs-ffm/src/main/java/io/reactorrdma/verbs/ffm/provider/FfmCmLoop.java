package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.ffm.abi.VerbsConstants;
import io.reactorrdma.verbs.ffm.rdmacore.Libc;
import io.reactorrdma.verbs.ffm.rdmacore.cm.CmEvent;
import io.reactorrdma.verbs.ffm.rdmacore.cm.CmEventChannel;
import io.reactorrdma.verbs.ffm.rdmacore.cm.CmId;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The context's connection-manager thread: it blocks in {@code poll(2)} on the event channel's descriptor and an
 * eventfd (no timed polling), takes each event ({@code rdma_get_cm_event}, acknowledged at once) and hands it to the
 * handler registered for its id (for a connect request: the listening id's). The eventfd brings it tasks
 * ({@link #submit}: teardown that must not block an I/O thread) and ends it on {@link #close()}.
 */
final class FfmCmLoop implements AutoCloseable {

    private static final Logger LOG = Loggers.getLogger(FfmCmLoop.class);
    /** How long close waits for the thread to finish what it is doing. */
    private static final long JOIN_MILLIS = 10_000;

    private final CmEventChannel channel;
    private final Libc.Waiter waiter;
    private final Map<Long, Consumer<CmEvent>> handlers = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile boolean closed;
    /** Taken by the one {@link #close} that runs. */
    private final AtomicBoolean closing = new AtomicBoolean();
    /** What must wait until the thread is out of rdma-core (unloading it), when close ran on the thread itself. */
    private volatile Runnable afterStop;

    FfmCmLoop(CmEventChannel channel, String name) {
        this.channel = channel;
        this.waiter = Libc.waiter(channel.fd());
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Events of the id at {@code idAddress} (and connect requests to it, when it listens) go to {@code handler}. */
    void register(long idAddress, Consumer<CmEvent> handler) {
        handlers.put(idAddress, handler);
    }

    void unregister(long idAddress) {
        handlers.remove(idAddress);
    }

    /**
     * Runs {@code task} on the CM thread; once the loop is closed, on the calling thread (the context closes its queue
     * pairs before the loop, so what is submitted later still releases what it owns).
     */
    CompletableFuture<Void> submit(ThrowingRunnable task) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        tasks.add(() -> {
            try {
                task.run();
                done.complete(null);
            } catch (Exception | Error e) {
                done.completeExceptionally(e);
            }
        });
        if (closed || isCmThread()) {
            runTasks(); // a CM event's handler (a device removal closing the context) must not wait for itself
        } else {
            waiter.wake();
        }
        return done;
    }

    /** A task for the CM thread. */
    interface ThrowingRunnable {
        void run() throws Exception;
    }

    private void run() {
        try {
            loop();
        } finally {
            if (closed) {
                waiter.close(); // close() from this very thread (a device removal) could not
                Runnable r = afterStop;
                if (r != null) {
                    r.run();
                }
            }
        }
    }

    private void loop() {
        while (!closed) {
            Libc.Waiter.Ready ready;
            try {
                ready = waiter.await(-1); // no timeout: an event or the eventfd ends the wait
            } catch (RuntimeException e) {
                LOG.error("the CM thread cannot wait on its event channel any more; connections of this context stop", e);
                return;
            }
            if (closed) {
                break;
            }
            runTasks();
            if (ready == Libc.Waiter.Ready.FD) {
                CmEvent event;
                try {
                    event = channel.awaitEvent(); // readable: does not block
                } catch (RuntimeException e) {
                    LOG.error("the CM thread cannot take events from its channel any more; connections of this context stop", e);
                    return;
                }
                dispatch(event);
            }
        }
    }

    private void runTasks() {
        Runnable t;
        while ((t = tasks.poll()) != null) {
            t.run();
        }
    }

    private void dispatch(CmEvent event) {
        boolean request = event.type() == VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST;
        Consumer<CmEvent> handler = handlers.get(request ? event.listenId() : event.id());
        if (handler == null) {
            if (request) {
                // its listener closed just now: the request's new id is ours to destroy, and the client is told at once
                FfmConnectionRequest.refuse(CmId.ofRequest(channel, event));
                return;
            }
            LOG.debug("{} of an id nobody waits for: ignored", event.typeName());
            return;
        }
        try {
            handler.accept(event);
        } catch (RuntimeException e) {
            LOG.warn("handling " + event.typeName() + " failed", e);
        }
    }

    /** Ends the thread (tasks not run yet run here) and closes the eventfd; the caller closes the channel after. */
    @Override
    public void close() {
        close(null);
    }

    /**
     * As {@link #close()}, then runs {@code release} once the thread is out of rdma-core: here, or when the thread ends
     * if this is the thread itself; never if the thread is stuck (the library must then stay loaded).
     */
    void close(Runnable release) {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        if (isCmThread()) {
            afterStop = release;
        }
        closed = true;
        waiter.wake();
        if (Thread.currentThread() != thread) {
            try {
                thread.join(JOIN_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        runTasks();
        if (!thread.isAlive()) {
            waiter.close(); // a thread still in poll(2) keeps it: closing it now could end a wait on another descriptor
            if (release != null) {
                release.run();
            }
        }
    }

    boolean isCmThread() {
        return Thread.currentThread() == thread;
    }
}
