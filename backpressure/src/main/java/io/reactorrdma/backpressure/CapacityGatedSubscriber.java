package io.reactorrdma.backpressure;

import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.Consumer;

import org.reactivestreams.Subscription;

import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.publisher.Sinks;
import reactor.util.context.Context;

/**
 * The outbound Reactive Streams bridge: subscribes to a publisher and requests from
 * it only what the engine can take now, so a slow network or a slow peer slows the publisher and
 * nothing queues without bound.
 *
 * <p><b>Demand.</b> Outstanding demand (requested from upstream, not yet delivered) never exceeds
 * the {@link Capacity} observed when it was requested: whenever it is asked to, the subscriber reads
 * {@code capacity.available()} and requests the difference {@code available - outstanding} when that
 * is at least a quarter of {@code available} (at least one), or positive with nothing outstanding — in
 * batches, as Reactor's {@code limitRate} replenishes, not one call into the publisher per item. It
 * asks on subscription, after each item, and when the engine calls
 * {@link #capacityAvailable()} from its completion path (returned slots, credits or window room) —
 * typically {@code credits.onCreditsReturned(gated::capacityAvailable)}. Requests are made by one
 * thread at a time (a work-in-progress counter serialises them; a racing caller just makes the
 * running one look again), so concurrent wake-ups cannot request the same capacity twice, and a
 * publisher that emits from inside {@code request} (reentrancy) is handled without recursion.
 *
 * <p><b>The sink.</b> Each item goes to the sink on the thread that delivers {@code onNext}. By the
 * time {@code accept} returns, the item must be reflected in what the capacity reports — the sink
 * took a slot or credit for it, or the capacity counts items the sink still holds — otherwise the
 * subscriber would request that capacity again. Capacity is a snapshot: when several senders share
 * it (sockets multiplexed on one engine), an item may arrive after another sender used the room it
 * was requested against; the sink then holds it until room returns. Such held items are bounded by
 * the outstanding demand, itself bounded by capacity, so nothing grows without bound. The subscriber
 * keeps no queue of its own.
 *
 * <p><b>Completion.</b> {@link #completion()} completes when the publisher completes, errors with
 * its error, errors when the sink throws, errors with {@link CancellationException} after
 * {@link #cancel()} and with the given cause after {@link #fail(Throwable)} — what
 * {@code RdmaOutbound.send(...).then()} returns. Cancelling a subscriber of {@code completion()}
 * does not cancel the send; to tie them, wrap it:
 * <pre>{@code
 * Mono.defer(() -> { publisher.subscribe(gated); return gated.completion(); }).doOnCancel(gated::cancel)
 * }</pre>
 *
 * <p>Rules followed: every call on the subscription — request and cancel — is made by the one
 * drain loop, so they are serial whichever threads ask (§2.7), and a publisher that completes or
 * errors is not cancelled afterwards (§2.4); at most one subscription (a second one is cancelled,
 * §2.5); null signals are rejected (§2.13); signals after a terminal one or after cancel are
 * dropped through Reactor's hooks — items after cancel go to the discard hook ({@link Operators#onDiscard}), so a
 * reference-counted buffer can be released; an item beyond requested demand (a non-compliant
 * publisher) is an overflow error. {@link #capacityAvailable()}, {@link #cancel()} and
 * {@link #fail(Throwable)} may be called from any thread.
 *
 * @param <T> the item type, typically a {@code ByteBuf}
 */
public final class CapacityGatedSubscriber<T> implements CoreSubscriber<T>, Disposable {

    private static final int ACTIVE = 0;
    /** Ended by us (cancel, fail, a throwing sink or capacity, overflow): upstream gets cancelled. */
    private static final int CANCELLED = 1;
    /** Ended by the publisher (onComplete, onError): upstream is not cancelled (rule 2.4). */
    private static final int TERMINATED = 2;

    @SuppressWarnings("rawtypes")
    private static final AtomicReferenceFieldUpdater<CapacityGatedSubscriber, Subscription> S =
            AtomicReferenceFieldUpdater.newUpdater(CapacityGatedSubscriber.class, Subscription.class, "s");
    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<CapacityGatedSubscriber> WIP =
            AtomicIntegerFieldUpdater.newUpdater(CapacityGatedSubscriber.class, "wip");
    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<CapacityGatedSubscriber> STATE =
            AtomicIntegerFieldUpdater.newUpdater(CapacityGatedSubscriber.class, "state");

    private final Capacity capacity;
    private final Consumer<? super T> sink;
    private final Context context;
    private final Sinks.Empty<Void> completion = Sinks.empty();

    /** The upstream subscription, set once. */
    private volatile Subscription s;
    /** ACTIVE until the first of cancel/fail/onComplete/onError; decides what completion says. */
    private volatile int state;
    /** Work in progress: serialises every call on the subscription (rule 2.7). */
    private volatile int wip;
    /** Whether upstream.cancel() was called; only touched inside the drain loop. */
    private boolean upstreamCancelled;
    /** Total requested from upstream; written only inside the drain loop. Long.MAX_VALUE: unbounded. */
    private volatile long requested;
    /** Total delivered to the sink; written only by onNext (serial by §1.3). */
    private volatile long delivered;
    private volatile boolean done;

    /** A subscriber with an empty context. */
    public CapacityGatedSubscriber(Capacity capacity, Consumer<? super T> sink) {
        this(capacity, sink, Context.empty());
    }

    /**
     * @param capacity where demand comes from
     * @param sink     takes each item, on the thread that delivers it
     * @param context  the context offered upstream (and used for Reactor's drop and discard hooks)
     */
    public CapacityGatedSubscriber(Capacity capacity, Consumer<? super T> sink, Context context) {
        this.capacity = Objects.requireNonNull(capacity, "capacity");
        this.sink = Objects.requireNonNull(sink, "sink");
        this.context = Objects.requireNonNull(context, "context");
    }

    @Override
    public Context currentContext() {
        return context;
    }

    @Override
    public void onSubscribe(Subscription subscription) {
        Objects.requireNonNull(subscription, "onSubscribe");
        if (!S.compareAndSet(this, null, subscription)) {
            subscription.cancel(); // rule 2.5
            Operators.reportSubscriptionSet();
            return;
        }
        drain(); // requests what capacity allows, or cancels at once if cancelled before
    }

    @Override
    public void onNext(T item) {
        Objects.requireNonNull(item, "onNext");
        if (done) {
            Operators.onNextDropped(item, context);
            return;
        }
        if (state == CANCELLED) {
            Operators.onDiscard(item, context);
            return;
        }
        long d = delivered;
        long r = requested;
        if (r != Long.MAX_VALUE && d >= r) {
            Operators.onDiscard(item, context);
            terminate(Exceptions.failWithOverflow("publisher emitted item " + (d + 1)
                    + " with only " + r + " requested: it ignores backpressure"));
            return;
        }
        try {
            sink.accept(item);
        } catch (Throwable e) {
            terminate(Operators.onOperatorError(e, context));
            return;
        }
        delivered = d + 1;
        drain();
    }

    @Override
    public void onError(Throwable error) {
        Objects.requireNonNull(error, "onError");
        if (done) {
            Operators.onErrorDropped(error, context);
            return;
        }
        done = true;
        if (STATE.compareAndSet(this, ACTIVE, TERMINATED)) {
            completion.tryEmitError(error);
        } else {
            Operators.onErrorDropped(error, context); // cancelled first: completion already signalled
        }
    }

    @Override
    public void onComplete() {
        if (done) {
            return;
        }
        done = true;
        if (STATE.compareAndSet(this, ACTIVE, TERMINATED)) {
            completion.tryEmitEmpty();
        } // else cancelled first: completion already signalled
    }

    /**
     * Capacity returned (a completion freed slots, the peer returned credits, the window has room):
     * request what it allows now. Any thread; cheap when nothing changed; allocation-free.
     */
    public void capacityAvailable() {
        drain();
    }

    /**
     * Stops the send: cancels the upstream subscription and errors {@link #completion()} with
     * {@link CancellationException}. Does nothing after completion or a previous cancel.
     */
    public void cancel() {
        terminate(new CancellationException("send cancelled before the publisher completed"));
    }

    /**
     * Stops the send because of {@code cause} (an engine or connection error): cancels upstream and
     * errors {@link #completion()} with it. Does nothing after completion or a previous cancel.
     */
    public void fail(Throwable cause) {
        terminate(Objects.requireNonNull(cause, "cause"));
    }

    /** Same as {@link #cancel()}. */
    @Override
    public void dispose() {
        cancel();
    }

    /** True after cancel, failure or a terminal signal from the publisher. */
    @Override
    public boolean isDisposed() {
        return state != ACTIVE;
    }

    /** Completes or errors when the send ends; see the class comment. */
    public Mono<Void> completion() {
        return completion.asMono();
    }

    /** Items requested from upstream and not yet delivered; {@code Long.MAX_VALUE} when unbounded. */
    public long outstanding() {
        long r = requested;
        return r == Long.MAX_VALUE ? Long.MAX_VALUE : r - delivered;
    }

    /** Total items requested from upstream so far; {@code Long.MAX_VALUE} once unbounded. */
    public long requestedTotal() {
        return requested;
    }

    /** Total items handed to the sink so far. */
    public long deliveredTotal() {
        return delivered;
    }

    /** Ends the send from our side: completion errors now, upstream is cancelled by the drain loop. */
    private void terminate(Throwable cause) {
        if (STATE.compareAndSet(this, ACTIVE, CANCELLED)) {
            completion.tryEmitError(cause);
            drain();
        }
    }

    /**
     * The only place that calls the subscription: requests what capacity allows, or cancels. One
     * thread at a time; a racing caller makes the running one loop once more.
     */
    private void drain() {
        if (WIP.getAndIncrement(this) != 0) {
            return;
        }
        int missed = 1;
        for (;;) {
            Subscription sub = s;
            int st = state;
            if (sub != null && st == CANCELLED) {
                if (!upstreamCancelled) {
                    upstreamCancelled = true;
                    sub.cancel();
                }
            } else if (sub != null && st == ACTIVE) {
                long r = requested;
                if (r != Long.MAX_VALUE) {
                    long available;
                    try {
                        available = capacity.available();
                    } catch (Throwable e) {
                        terminate(Operators.onOperatorError(e, context));
                        available = 0;
                    }
                    long outstanding = r - delivered;
                    long n = available - outstanding;
                    // in batches of a quarter of the room: each request is a call into the publisher (its own
                    // atomic add and drain loop), which a one-by-one echo otherwise paid for every message
                    if (n > 0 && (outstanding == 0 || n >= Math.max(1, available >> 2))) {
                        requested = Operators.addCap(r, n);
                        sub.request(n);
                    }
                }
            }
            missed = WIP.addAndGet(this, -missed);
            if (missed == 0) {
                return;
            }
        }
    }

    @Override
    public String toString() {
        return "CapacityGatedSubscriber[requested=" + requested + ", delivered=" + delivered
                + ", disposed=" + isDisposed() + "]";
    }
}
