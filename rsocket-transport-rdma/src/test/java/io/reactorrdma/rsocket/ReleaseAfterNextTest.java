package io.reactorrdma.rsocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ReleaseAfterNext}: each frame released once {@code onNext} returns; with
 * {@link ReleaseAfterNext#endingClosed}, the end of the stream as RSocket expects it from a
 * transport (what {@link RdmaDuplexConnection#receive()} did with three operators before).
 */
class ReleaseAfterNextTest {

    @Test
    void releasesEachFrameAfterOnNextAndKeepsWhatTheSubscriberRetained() {
        ByteBuf kept = Unpooled.buffer(1).writeByte(1);
        ByteBuf dropped = Unpooled.buffer(1).writeByte(2);
        StepVerifier.create(ReleaseAfterNext.apply(Flux.just(kept, dropped)))
                .consumeNextWith(f -> {
                    assertThat(f.refCnt()).as("alive during onNext").isEqualTo(1);
                    f.retain();
                })
                .consumeNextWith(f -> assertThat(f.refCnt()).isEqualTo(1))
                .verifyComplete();
        assertThat(kept.refCnt()).as("retained by the subscriber").isEqualTo(1);
        assertThat(dropped.refCnt()).as("the transport's reference dropped").isZero();
        kept.release();
    }

    @Test
    void endingClosedTurnsCompletionIntoClosedChannelException() {
        ByteBuf frame = Unpooled.buffer(1).writeByte(1);
        StepVerifier.create(ReleaseAfterNext.endingClosed(Flux.just(frame)))
                .expectNextCount(1)
                .expectErrorSatisfies(e -> assertThat(e).isExactlyInstanceOf(ClosedChannelException.class).hasNoCause())
                .verify();
        assertThat(frame.refCnt()).isZero();
    }

    @Test
    void endingClosedWrapsAFailureAsTheCauseOfClosedChannelException() {
        IOException failure = new IOException("peer 10.0.0.1 died");
        StepVerifier.create(ReleaseAfterNext.endingClosed(Flux.error(failure)))
                .expectErrorSatisfies(e -> assertThat(e).isExactlyInstanceOf(ClosedChannelException.class).hasCause(failure))
                .verify();
    }

    @Test
    void endingClosedPassesAClosedChannelExceptionAsItIs() {
        ClosedChannelException closed = new ClosedChannelException();
        StepVerifier.create(ReleaseAfterNext.endingClosed(Flux.error(closed)))
                .expectErrorSatisfies(e -> assertThat(e).isSameAs(closed))
                .verify();
    }

    @Test
    void plainApplyPassesCompletionAndErrorsThrough() {
        StepVerifier.create(ReleaseAfterNext.apply(Flux.<ByteBuf>empty())).verifyComplete();
        IOException failure = new IOException("x");
        StepVerifier.create(ReleaseAfterNext.apply(Flux.<ByteBuf>error(failure)))
                .verifyErrorSatisfies(e -> assertThat(e).isSameAs(failure));
    }
}
