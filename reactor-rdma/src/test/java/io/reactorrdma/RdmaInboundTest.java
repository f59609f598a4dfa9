package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.memory.RegisteredByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import static io.reactorrdma.TestMessages.message;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reactor Netty's inbound semantics: cancelling {@code receive()} releases what waits and drops
 * (and counts as consumed) what comes later, so the peer goes on; what nobody read is released
 * when the connection or its resources are disposed; {@code remoteWrites()} serves later
 * subscribers.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RdmaInboundTest {

    @RegisterExtension
    final RdmaPair pair = new RdmaPair();
    private final CompletableFuture<RdmaConnection> serverSide = new CompletableFuture<>();

    private void serve(Function<RdmaConnection, Mono<Void>> handler) {
        pair.serve(s -> s.handleConnection(c -> {
            serverSide.complete(c);
            return handler.apply(c);
        }));
    }

    private RdmaConnection connect() {
        return pair.connect();
    }

    @Test
    void cancellingReceiveReleasesWhatWaitsAndThePeerGoesOn() throws Exception {
        AtomicInteger read = new AtomicInteger();
        serve(c -> {
            c.receive().subscribe(new BaseSubscriber<ByteBuf>() {
                @Override
                protected void hookOnSubscribe(Subscription subscription) {
                    request(3);
                }

                @Override
                protected void hookOnNext(ByteBuf m) {
                    m.release();
                    if (read.incrementAndGet() == 3) {
                        // messages wait behind (the peer's window is 32); later ones keep coming
                        Mono.delay(Duration.ofMillis(200)).subscribe(t -> cancel());
                    }
                }
            });
            return c.onDispose();
        });
        RdmaConnection c = connect();
        c.outbound().send(Flux.range(0, 200).map(i -> message(c, 100, i))).then().block(Duration.ofSeconds(30));
        RdmaConnection s = serverSide.get(30, TimeUnit.SECONDS);
        assertThat(read.get()).isEqualTo(3);
        assertThat(s.isDisposed()).as("cancelling receive() leaves the connection open").isFalse();
        // the connection still works the other way
        CompletableFuture<Integer> back = c.receive().take(1).map(m -> {
            int n = m.readableBytes();
            m.release();
            return n;
        }).single().toFuture();
        s.outbound().send(Mono.just(message(s, 7, 1))).then().block(Duration.ofSeconds(30));
        assertThat(back.get(30, TimeUnit.SECONDS)).isEqualTo(7);
        c.dispose();
        s.onDispose().block(Duration.ofSeconds(30));
    }

    @Test
    void afterCancelTheConnectionLetsGoOfTheSubscriber() throws Exception {
        serve(c -> Mono.never());
        RdmaConnection c = connect();
        c.outbound().send(Flux.range(0, 3).map(i -> message(c, 100, i))).then().block(Duration.ofSeconds(30));
        RdmaConnection s = serverSide.get(30, TimeUnit.SECONDS);
        java.util.concurrent.BlockingQueue<ByteBuf> got = new java.util.concurrent.LinkedBlockingQueue<>();
        AtomicReference<Subscription> subscription = new AtomicReference<>();
        org.reactivestreams.Subscriber<ByteBuf> subscriber = new org.reactivestreams.Subscriber<>() {
            @Override
            public void onSubscribe(Subscription sub) {
                subscription.set(sub);
            }

            @Override
            public void onNext(ByteBuf b) {
                got.add(b);
            }

            @Override
            public void onError(Throwable t) {
            }

            @Override
            public void onComplete() {
            }
        };
        s.receive().subscribe(subscriber);
        subscription.get().request(1);
        got.poll(30, TimeUnit.SECONDS).release();
        subscription.getAndSet(null).cancel();
        java.lang.ref.WeakReference<Object> ref = new java.lang.ref.WeakReference<>(subscriber);
        subscriber = null;
        for (int i = 0; i < 200 && ref.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(ref.get()).as("the subscriber after cancel (rule 3.13)").isNull();
        c.dispose();
    }

    @Test
    void messagesNobodyReadAreReleasedWhenTheConnectionIsDisposed() throws Exception {
        serve(RdmaConnection::onDispose);
        RdmaConnection c = connect();
        c.outbound().send(Flux.range(0, 5).map(i -> message(c, 100, i))).then().block(Duration.ofSeconds(30));
        RdmaConnection s = serverSide.get(30, TimeUnit.SECONDS);
        long before = pair.serverResources().allocator().liveBuffers();
        Eventually.until(() -> pair.serverResources().allocator().liveBuffers() >= before); // arrived
        s.dispose();
        c.onDispose().block(Duration.ofSeconds(30));
        s.onDispose().block(Duration.ofSeconds(30));
        // nothing of the 5 stays live once the server side is disposed (the receive ring is reposted)
        CompletableFuture<Throwable> late = new CompletableFuture<>();
        s.receive().subscribe(m -> late.completeExceptionally(new AssertionError("a released message was delivered")),
                late::complete, () -> late.complete(null));
        assertThat(late.get(30, TimeUnit.SECONDS)).as("a late subscriber gets only the end").isNull();
    }

    @Test
    void messagesNobodyReadAfterThePeerClosedAreReleasedWithTheResources() throws Exception {
        serve(c -> Mono.never()); // never reads, never disposes
        RdmaConnection c = connect();
        c.outbound().send(Flux.range(0, 5).map(i -> message(c, 100, i))).then().block(Duration.ofSeconds(30));
        RdmaConnection s = serverSide.get(30, TimeUnit.SECONDS);
        c.dispose();
        s.onDispose().block(Duration.ofSeconds(30));
        // the pair disposes the resources after the test and asserts that no buffer is live
    }

    @Test
    void remoteWritesReachASubscriberThatCameAfterAnotherCancelled() throws Exception {
        serve(RdmaConnection::onDispose);
        RdmaConnection client = connect();
        RdmaConnection s = serverSide.get(30, TimeUnit.SECONDS);
        ByteBuf first = s.allocateRemoteWritable(64);
        ByteBuf second = s.allocateRemoteWritable(64);
        try {
            CompletableFuture<Integer> one = s.remoteWrites().next().toFuture();
            client.writeNow(message(client, 10, 1), RegisteredByteBufAllocator.addressOf(first),
                    RegisteredByteBufAllocator.regionOf(first).rkey());
            assertThat(one.get(30, TimeUnit.SECONDS)).isEqualTo(10); // next() cancelled the first subscriber
            CompletableFuture<Integer> two = s.remoteWrites().next().toFuture();
            client.writeNow(message(client, 20, 2), RegisteredByteBufAllocator.addressOf(second),
                    RegisteredByteBufAllocator.regionOf(second).rkey());
            assertThat(two.get(30, TimeUnit.SECONDS)).as("a later subscriber sees the next write").isEqualTo(20);
        } finally {
            first.release();
            second.release();
            client.dispose();
        }
    }
}
