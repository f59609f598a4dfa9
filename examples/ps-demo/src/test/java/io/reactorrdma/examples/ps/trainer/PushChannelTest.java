package io.reactorrdma.examples.ps.trainer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketClient;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A push stream that the shard fails: the waiting push and every later one fail naming the shard; every batch is released. */
class PushChannelTest {

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
        assertThatThrownBy(() -> channel.push(second).block(Duration.ofSeconds(10))).hasMessageContaining("the push stream to shard 2 failed");
        assertThat(first.refCnt()).isZero();
        assertThat(second.refCnt()).isZero();
        channel.close();
    }
}
