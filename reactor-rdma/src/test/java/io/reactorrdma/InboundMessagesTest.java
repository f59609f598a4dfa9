package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link InboundMessages} on its own: what is released, counted as consumed, and let go. */
class InboundMessagesTest {

    private final AtomicInteger consumed = new AtomicInteger();
    private final AtomicInteger finished = new AtomicInteger();
    private final InboundMessages inbound = new InboundMessages(consumed::addAndGet, "test peer", finished::incrementAndGet);

    /** A subscriber that keeps what it gets and its subscription. */
    private static class Keeper implements Subscriber<ByteBuf> {
        final List<ByteBuf> got = new ArrayList<>();
        final AtomicReference<Object> end = new AtomicReference<>();
        Subscription s;

        @Override
        public void onSubscribe(Subscription s) {
            this.s = s;
        }

        @Override
        public void onNext(ByteBuf b) {
            got.add(b);
        }

        @Override
        public void onError(Throwable t) {
            end.set(t);
        }

        @Override
        public void onComplete() {
            end.set("complete");
        }
    }

    @Test
    void afterCancelTheSubscriberIsNoLongerReferenced() throws Exception {
        Keeper k = new Keeper();
        inbound.subscribe(k);
        k.s.request(1);
        inbound.onMessage(Unpooled.buffer(4));
        assertThat(k.got).hasSize(1);
        k.got.get(0).release();
        k.s.cancel();
        WeakReference<Keeper> ref = new WeakReference<>(k);
        k = null;
        for (int i = 0; i < 100 && ref.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertThat(ref.get()).as("the subscriber after cancel").isNull();
    }

    @Test
    void afterCancelWaitingAndLaterMessagesAreReleasedAndCountedAsConsumed() {
        Keeper k = new Keeper();
        inbound.subscribe(k);
        ByteBuf waiting = Unpooled.buffer(4);
        inbound.onMessage(waiting);
        k.s.cancel();
        ByteBuf later = Unpooled.buffer(4);
        inbound.onMessage(later);
        assertThat(waiting.refCnt()).isZero();
        assertThat(later.refCnt()).isZero();
        assertThat(consumed.get()).isEqualTo(2);
        assertThat(k.got).isEmpty();
        assertThat(finished.get()).isEqualTo(1);
    }

    @Test
    void unreadMessagesAreReleasedOnDisposeAndALateSubscriberGetsTheEnd() {
        ByteBuf waiting = Unpooled.buffer(4);
        inbound.onMessage(waiting);
        inbound.releaseUnread();
        assertThat(waiting.refCnt()).isZero();
        inbound.onClose(null);
        Keeper k = new Keeper();
        inbound.subscribe(k);
        assertThat(k.end.get()).isEqualTo("complete");
        assertThat(consumed.get()).isEqualTo(1);
    }

    @Test
    void anAttachedSubscriberKeepsItsMessagesOnDisposeButNotOnResourcesDispose() {
        Keeper k = new Keeper();
        inbound.subscribe(k);
        ByteBuf first = Unpooled.buffer(4);
        inbound.onMessage(first);
        inbound.releaseUnread();
        assertThat(first.refCnt()).isOne();
        inbound.releaseAll();
        assertThat(first.refCnt()).isZero();
        inbound.onClose(null);
        assertThat(k.end.get()).isEqualTo("complete");
    }

    @Test
    void aSecondSubscriberAndANonPositiveRequestGetErrors() {
        Keeper k = new Keeper();
        inbound.subscribe(k);
        Keeper second = new Keeper();
        inbound.subscribe(second);
        assertThat(second.end.get()).isInstanceOf(IllegalStateException.class);
        ByteBuf waiting = Unpooled.buffer(4);
        inbound.onMessage(waiting);
        k.s.request(0);
        assertThat(k.end.get()).isInstanceOf(IllegalArgumentException.class);
        assertThat(waiting.refCnt()).isZero();
    }

    /**
     * The connection is disposed while its subscriber is attaching (here, from inside its
     * onSubscribe: after receive() took it, before it was in place): it came first, so it keeps
     * what waits and what arrives, and sees the end.
     */
    @Test
    void aSubscriberAttachingAsTheConnectionIsDisposedKeepsItsMessages() {
        ByteBuf waiting = Unpooled.buffer(4);
        inbound.onMessage(waiting);
        Keeper k = new Keeper() {
            @Override
            public void onSubscribe(Subscription s) {
                super.onSubscribe(s);
                inbound.releaseUnread(); // the dispose, at the racing point
                s.request(Long.MAX_VALUE);
            }
        };
        inbound.subscribe(k);
        ByteBuf later = Unpooled.buffer(4);
        inbound.onMessage(later);
        inbound.onClose(null);
        assertThat(k.got).as("messages the attaching subscriber got").containsExactly(waiting, later);
        assertThat(k.end.get()).isEqualTo("complete");
        k.got.forEach(ByteBuf::release);
    }

    /** A subscriber that comes after the connection was disposed gets only the end; what waited was released. */
    @Test
    void aSubscriberAfterTheDisposeGetsOnlyTheEnd() {
        ByteBuf waiting = Unpooled.buffer(4);
        inbound.onMessage(waiting);
        inbound.releaseUnread();
        assertThat(waiting.refCnt()).isZero();
        Keeper k = new Keeper();
        inbound.subscribe(k);
        k.s.request(Long.MAX_VALUE);
        ByteBuf later = Unpooled.buffer(4);
        inbound.onMessage(later);
        inbound.onClose(null);
        assertThat(later.refCnt()).isZero();
        assertThat(k.got).isEmpty();
        assertThat(k.end.get()).isEqualTo("complete");
        Keeper second = new Keeper();
        inbound.subscribe(second);
        assertThat(second.end.get()).as("a second subscriber").isInstanceOf(IllegalStateException.class);
    }
}
