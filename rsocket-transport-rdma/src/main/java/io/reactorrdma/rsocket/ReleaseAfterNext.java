package io.reactorrdma.rsocket;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxOperator;
import reactor.util.context.Context;

/**
 * Releases each frame once the subscriber's {@code onNext} has returned: the transport's reference.
 * RSocket retains what it keeps beyond {@code onNext} (the contract of Reactor Netty's inbound,
 * which RSocket's own transports follow), so a frame lives exactly as long as RSocket holds it.
 * Used by {@link RdmaDuplexConnection} and by the recovery layer's switching connection.
 */
public final class ReleaseAfterNext implements CoreSubscriber<ByteBuf>, Subscription {

    private final CoreSubscriber<? super ByteBuf> actual;
    private Subscription upstream;

    private ReleaseAfterNext(CoreSubscriber<? super ByteBuf> actual) {
        this.actual = actual;
    }

    /** {@code frames} with each frame released after its {@code onNext}. */
    public static Flux<ByteBuf> apply(Flux<ByteBuf> frames) {
        return new FluxOperator<ByteBuf, ByteBuf>(frames) {
            @Override
            public void subscribe(CoreSubscriber<? super ByteBuf> actual) {
                source.subscribe(new ReleaseAfterNext(actual));
            }
        };
    }

    @Override
    public void onSubscribe(Subscription s) {
        this.upstream = s;
        actual.onSubscribe(this);
    }

    @Override
    public void onNext(ByteBuf frame) {
        try {
            actual.onNext(frame);
        } finally {
            ReferenceCountUtil.safeRelease(frame);
        }
    }

    @Override
    public void onError(Throwable t) {
        actual.onError(t);
    }

    @Override
    public void onComplete() {
        actual.onComplete();
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
