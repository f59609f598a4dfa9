package io.reactorrdma.rsocket.recovery;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxOperator;
import reactor.util.context.Context;

/**
 * Drops the merged inbound's reference to each frame once the subscriber's {@code onNext} has
 * returned: the transports' contract (RSocket retains what it keeps). The switching connection
 * retains every frame it queues, because the connection it came from releases it after its own
 * {@code onNext}, which may return before the frame is delivered.
 */
final class ReleasingSubscriber implements CoreSubscriber<ByteBuf>, Subscription {

    private final CoreSubscriber<? super ByteBuf> actual;
    private Subscription upstream;

    private ReleasingSubscriber(CoreSubscriber<? super ByteBuf> actual) {
        this.actual = actual;
    }

    static Flux<ByteBuf> releaseAfterNext(Flux<ByteBuf> frames) {
        return new FluxOperator<ByteBuf, ByteBuf>(frames) {
            @Override
            public void subscribe(CoreSubscriber<? super ByteBuf> actual) {
                source.subscribe(new ReleasingSubscriber(actual));
            }
        };
    }

    @Override
    public void onSubscribe(Subscription s) {
        upstream = s;
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
