package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;
import reactor.util.concurrent.Queues;

import java.util.Queue;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.function.IntConsumer;

/**
 * The messages of one connection for its one {@code receive()} subscriber, with Reactor Netty's
 * inbound semantics:
 * <ul>
 *   <li>messages wait here until the subscriber asks for them; each one delivered or dropped counts
 *       as consumed, which returns the peer's allowance;</li>
 *   <li>cancelling drains and releases what waits, and every later message is released as it
 *       arrives (and counted as consumed, so the peer never stalls); the connection stays open;</li>
 *   <li>{@link #releaseUnread()} (the connection disposed) releases what waits for a subscriber
 *       that never came, and what arrives later; a later subscriber gets only the end of the
 *       stream. {@link #releaseAll()} (the resources disposed) does so even for an attached one;</li>
 *   <li>one subscriber: another gets an {@link IllegalStateException}.</li>
 * </ul>
 * Messages and the end arrive on the I/O thread; requests and cancel come from any thread. One
 * drain loop at a time (a work-in-progress counter) delivers, drops and signals the end; after
 * cancel or the end it holds no reference to the subscriber (rule 3.13).
 */
final class InboundMessages extends Flux<ByteBuf> implements Subscription {

    private static final AtomicIntegerFieldUpdater<InboundMessages> WIP =
            AtomicIntegerFieldUpdater.newUpdater(InboundMessages.class, "wip");
    private static final AtomicIntegerFieldUpdater<InboundMessages> SUBSCRIBED_STATE =
            AtomicIntegerFieldUpdater.newUpdater(InboundMessages.class, "subscribed");
    private static final AtomicLongFieldUpdater<InboundMessages> REQUESTED =
            AtomicLongFieldUpdater.newUpdater(InboundMessages.class, "requested");

    /** Filled by the I/O thread only, drained by the drain loop. */
    private final Queue<ByteBuf> queue = Queues.<ByteBuf>unbounded(Queues.SMALL_BUFFER_SIZE).get();
    private final IntConsumer consumed;
    private final String peer;
    /** Told once when the stream needs nothing more from us: ended, cancelled or released. */
    private final Runnable finished;

    private volatile CoreSubscriber<? super ByteBuf> actual;
    /**
     * Who reads, decided once, atomically, between {@link #subscribe} and {@link #releaseUnread}:
     * {@link #OPEN}, {@link #SUBSCRIBED}, {@link #RELEASED_UNREAD} (nobody had come), or
     * {@link #LATE} (a subscriber after that, for the end only).
     */
    private volatile int subscribed;
    private static final int OPEN = 0;
    private static final int SUBSCRIBED = 1;
    private static final int RELEASED_UNREAD = 2;
    private static final int LATE = 3;
    private volatile int wip;
    private volatile long requested;
    /** The subscriber cancelled: drop everything, signal nothing. */
    private volatile boolean cancelled;
    /** Nobody will read: drop what waits and what comes; still signal the end to a late subscriber. */
    private volatile boolean released;
    /** The socket ended; {@link #error} says how (null: normally). */
    private volatile boolean done;
    private Throwable error;
    /** A non-positive request (rule 3.9): the subscriber gets this error. */
    private volatile IllegalArgumentException badRequest;
    /** The end was signalled to the subscriber (drain loop). */
    private boolean terminated;
    private boolean finishedTold;

    /**
     * @param consumed told of messages delivered or dropped (the peer's allowance comes back)
     * @param peer     for error messages
     * @param finished told once, from the drain loop, when nothing more will be delivered
     */
    InboundMessages(IntConsumer consumed, String peer, Runnable finished) {
        this.consumed = consumed;
        this.peer = peer;
        this.finished = finished;
    }

    /** A message arrived (I/O thread); ownership passes. */
    void onMessage(ByteBuf message) {
        queue.offer(message);
        drain();
    }

    /** The socket ended (I/O thread); {@code cause} is null for a normal close. */
    void onClose(Throwable cause) {
        error = cause;
        done = true;
        drain();
    }

    /**
     * The connection was disposed here (or its resources): if no subscriber came, release what
     * waits and what arrives from now on. A subscriber already attached keeps its messages.
     */
    void releaseUnread() {
        // decided against subscribe()'s claim, not against actual, which an attaching subscriber sets only after its onSubscribe
        if (SUBSCRIBED_STATE.compareAndSet(this, OPEN, RELEASED_UNREAD)) {
            released = true;
            drain();
        }
    }

    /**
     * The resources are being disposed: release what waits and what arrives, even for an attached
     * subscriber (which then sees the end of the stream without them).
     */
    void releaseAll() {
        released = true;
        drain();
    }

    @Override
    public void subscribe(CoreSubscriber<? super ByteBuf> subscriber) {
        if (!SUBSCRIBED_STATE.compareAndSet(this, OPEN, SUBSCRIBED) && !SUBSCRIBED_STATE.compareAndSet(this, RELEASED_UNREAD, LATE)) {
            Operators.error(subscriber, new IllegalStateException(
                    "receive() of the connection to " + peer + " allows one subscriber, and it already had one"));
            return;
        }
        subscriber.onSubscribe(this);
        actual = subscriber;
        drain();
    }

    @Override
    public void request(long n) {
        if (n <= 0) {
            badRequest = new IllegalArgumentException("§3.9 violated: request(" + n + ") on receive(): demand must be positive");
        } else {
            Operators.addCap(REQUESTED, this, n);
        }
        drain();
    }

    @Override
    public void cancel() {
        cancelled = true;
        drain();
    }

    private void drain() {
        if (WIP.getAndIncrement(this) != 0) {
            return;
        }
        int missed = 1;
        for (;;) {
            CoreSubscriber<? super ByteBuf> a = actual;
            if (cancelled) {
                actual = null;
                dropQueued();
            } else {
                if (released) {
                    dropQueued();
                }
                if (a != null) {
                    emit(a);
                }
            }
            if (!finishedTold && (cancelled || released || terminated)) {
                finishedTold = true;
                finished.run();
            }
            missed = WIP.addAndGet(this, -missed);
            if (missed == 0) {
                return;
            }
        }
    }

    /** Delivers what is asked for, then the end when everything was delivered (drain loop). */
    private void emit(CoreSubscriber<? super ByteBuf> a) {
        IllegalArgumentException bad = badRequest;
        if (bad != null) {
            cancelled = true;
            actual = null;
            dropQueued();
            a.onError(bad);
            return;
        }
        long r = requested;
        long e = 0;
        while (e != r) {
            if (cancelled) {
                return; // the next turn of the loop drops what waits
            }
            boolean d = done;
            ByteBuf m = queue.poll();
            if (m == null) {
                if (d) {
                    terminate(a);
                }
                break;
            }
            consumed.accept(1);
            a.onNext(m);
            e++;
        }
        if (e == r && done && queue.isEmpty() && !cancelled) {
            terminate(a);
        }
        if (e != 0 && r != Long.MAX_VALUE) {
            REQUESTED.addAndGet(this, -e);
        }
    }

    private void terminate(CoreSubscriber<? super ByteBuf> a) {
        if (actual == null) {
            return;
        }
        actual = null;
        terminated = true;
        Throwable t = error;
        if (t == null) {
            a.onComplete();
        } else {
            a.onError(t);
        }
    }

    /** Releases what waits; each one counts as consumed, so the peer's allowance comes back. */
    private void dropQueued() {
        int n = 0;
        ByteBuf m;
        while ((m = queue.poll()) != null) {
            m.release();
            n++;
        }
        if (n > 0) {
            consumed.accept(n);
        }
    }
}
