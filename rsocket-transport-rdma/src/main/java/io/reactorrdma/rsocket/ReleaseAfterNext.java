package io.reactorrdma.rsocket;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import io.rsocket.frame.FrameHeaderCodec;
import io.rsocket.frame.FrameType;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxOperator;
import reactor.util.context.Context;

import java.nio.channels.ClosedChannelException;

/**
 * Releases each frame once the subscriber's {@code onNext} has returned: the transport's reference.
 * RSocket retains what it keeps beyond {@code onNext} (the contract of Reactor Netty's inbound,
 * which RSocket's own transports follow), so a frame lives exactly as long as RSocket holds it.
 * Used by {@link RdmaDuplexConnection} (with the end of the stream turned into the error RSocket
 * expects, in the same operator: one hop per frame instead of three) and by the recovery layer's
 * switching connection.
 */
public final class ReleaseAfterNext implements CoreSubscriber<ByteBuf>, Subscription {

    private final CoreSubscriber<? super ByteBuf> actual;
    /** End with a {@link ClosedChannelException}: on completion, and wrapping any other error. */
    private final boolean endClosed;
    /** Runs after the subscriber handled a LEASE frame (its requester may have room now), or null. */
    private final Runnable afterLease;
    private Subscription upstream;

    private ReleaseAfterNext(CoreSubscriber<? super ByteBuf> actual, boolean endClosed, Runnable afterLease) {
        this.actual = actual;
        this.endClosed = endClosed;
        this.afterLease = afterLease;
    }

    /** {@code frames} with each frame released after its {@code onNext}. */
    public static Flux<ByteBuf> apply(Flux<ByteBuf> frames) {
        return operator(frames, false, null);
    }

    /** As {@link #apply}, running {@code afterLease} once the subscriber's {@code onNext} of a LEASE frame returned. */
    public static Flux<ByteBuf> apply(Flux<ByteBuf> frames, Runnable afterLease) {
        return operator(frames, false, afterLease);
    }

    /**
     * As {@link #apply}, ending as RSocket expects a transport's receive stream to end: completion
     * becomes a {@link ClosedChannelException}, and any other error one with it as the cause (a
     * {@code ClosedChannelException} passes as it is).
     */
    static Flux<ByteBuf> endingClosed(Flux<ByteBuf> frames) {
        return operator(frames, true, null);
    }

    /** As {@link #endingClosed(Flux)}, running {@code afterLease} as {@link #apply(Flux, Runnable)} does. */
    static Flux<ByteBuf> endingClosed(Flux<ByteBuf> frames, Runnable afterLease) {
        return operator(frames, true, afterLease);
    }

    private static Flux<ByteBuf> operator(Flux<ByteBuf> frames, boolean endClosed, Runnable afterLease) {
        return new FluxOperator<ByteBuf, ByteBuf>(frames) {
            @Override
            public void subscribe(CoreSubscriber<? super ByteBuf> actual) {
                source.subscribe(new ReleaseAfterNext(actual, endClosed, afterLease));
            }
        };
    }

    /** A {@link ClosedChannelException} caused by {@code cause}. */
    static ClosedChannelException closed(Throwable cause) {
        ClosedChannelException e = new ClosedChannelException();
        e.initCause(cause);
        return e;
    }

    @Override
    public void onSubscribe(Subscription s) {
        this.upstream = s;
        actual.onSubscribe(this);
    }

    @Override
    public void onNext(ByteBuf frame) {
        boolean lease = afterLease != null && frame.readableBytes() >= FrameHeaderCodec.size()
                && FrameHeaderCodec.streamId(frame) == 0 && FrameHeaderCodec.frameType(frame) == FrameType.LEASE;
        try {
            actual.onNext(frame);
        } finally {
            ReferenceCountUtil.safeRelease(frame);
        }
        if (lease) {
            afterLease.run(); // after RSocket's requester took the lease, so a waiter woken now sees it
        }
    }

    @Override
    public void onError(Throwable t) {
        actual.onError(endClosed && !(t instanceof ClosedChannelException) ? closed(t) : t);
    }

    @Override
    public void onComplete() {
        if (endClosed) {
            actual.onError(new ClosedChannelException());
        } else {
            actual.onComplete();
        }
    }

    @Override
    public Context currentContext() {
        return actual.currentContext();
    }

    @Override
    public void request(long n) {
        upstream.request(n);
    }

    @Override
    public void cancel() {
        upstream.cancel();
    }
}
