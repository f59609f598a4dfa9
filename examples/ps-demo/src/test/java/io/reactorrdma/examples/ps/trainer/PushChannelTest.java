package io.reactorrdma.examples.ps.trainer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketClient;
import io.rsocket.util.ByteBufPayload;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A push stream that the shard fails: the waiting push and every later one fail naming the shard;
 * every batch is released. Pushes from two threads at once (a trainer's next step started by an ack
 * on the I/O thread while the previous push is still being handed to RSocket) both go out.
 */
class PushChannelTest {

    /**
     * The first push is held inside the hand-over to RSocket (the shard's onNext waits) while a
     * second thread pushes: the second must queue behind it, not fail the stream. Before the fix the
     * second push failed the stream with FAIL_NON_SERIALIZED (the demo's training arms failed so).
     */
    @Test
    void pushesFromTwoThreadsAtOnceBothGoOut() throws Exception {
        CountDownLatch firstInside = new CountDownLatch(1);
        CountDownLatch secondPushed = new CountDownLatch(1);
        RSocket shard = new RSocket() {
            @Override
            public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
                return Flux.from(payloads).map(p -> {
                    int n = p.data().getInt(0);
                    p.release();
                    if (n == 1) {
                        firstInside.countDown();
                        await(secondPushed);
                    }
                    return ByteBufPayload.create(Unpooled.buffer().writeInt(n * 10));
                });
            }
        };
        PushChannel channel = new PushChannel(0, RSocketClient.from(shard), PushObserver.NONE);
        ExecutorService pusher = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> first = pusher.submit(() -> channel.push(Unpooled.buffer().writeInt(1)).block(Duration.ofSeconds(10)));
            assertThat(firstInside.await(10, TimeUnit.SECONDS)).as("the first push reached the shard").isTrue();
            Mono<Integer> second = channel.push(Unpooled.buffer().writeInt(2)).cache();
            second.subscribe(v -> { }, e -> { });
            secondPushed.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(10);
            assertThat(second.block(Duration.ofSeconds(10))).isEqualTo(20);
        } finally {
            secondPushed.countDown();
            pusher.shutdownNow();
            channel.close();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aFailedStreamFailsThePushesAndReleasesTheBatches() {
        RSocket shard = new RSocket() {
            @Override
            public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
                return Flux.from(payloads).doOnNext(Payload::release).take(1)
                        .thenMany(Flux.error(new IllegalArgumentException("a push batch of dimension 3 reached shard 2")));
            }
        };
        PushChannel channel = new PushChannel(2, RSocketClient.from(shard), PushObserver.NONE);
        ByteBuf first = Unpooled.buffer().writeInt(1);
        assertThatThrownBy(() -> channel.push(first).block(Duration.ofSeconds(10)))
                .hasMessageContaining("the push stream to shard 2 failed: a push batch of dimension 3 reached shard 2");
        ByteBuf second = Unpooled.buffer().writeInt(2);
        assertThatThrownBy(() -> channel.push(second).block(Duration.ofSeconds(10)))
                .hasMessageContaining("the push stream to shard 2 failed");
        assertThat(first.refCnt()).isZero();
        assertThat(second.refCnt()).isZero();
        channel.close();
    }
}
