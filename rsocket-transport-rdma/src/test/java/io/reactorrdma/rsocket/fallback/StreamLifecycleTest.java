package io.reactorrdma.rsocket.fallback;

import io.rsocket.frame.FrameHeaderCodec;
import io.rsocket.frame.FrameType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** When a stream has ended, read from its frames in both directions, per interaction model. */
class StreamLifecycleTest {

    private static final int F = FrameHeaderCodec.FLAGS_F;
    private static final int C = FrameHeaderCodec.FLAGS_C;
    private static final int N = FrameHeaderCodec.FLAGS_N;

    @Test
    void requestResponseEndsWithTheAnswerOrAnError() {
        StreamLifecycle ours = StreamLifecycle.open(null, FrameType.REQUEST_RESPONSE, 0, true);
        assertThat(ours.ended()).isFalse();
        ours.received(FrameType.PAYLOAD, N | F);
        assertThat(ours.ended()).as("a fragment of the answer").isFalse();
        ours.received(FrameType.PAYLOAD, N);
        assertThat(ours.ended()).isTrue();

        StreamLifecycle failed = StreamLifecycle.open(null, FrameType.REQUEST_RESPONSE, 0, true);
        failed.received(FrameType.ERROR, 0);
        assertThat(failed.ended()).isTrue();

        StreamLifecycle theirs = StreamLifecycle.open(null, FrameType.REQUEST_RESPONSE, F, false);
        theirs.received(FrameType.PAYLOAD, F);
        theirs.received(FrameType.PAYLOAD, 0); // last fragment of the request
        assertThat(theirs.inboundOpen()).isFalse();
        assertThat(theirs.ended()).isFalse();
        theirs.sent(FrameType.PAYLOAD, N | C);
        assertThat(theirs.ended()).isTrue();
    }

    @Test
    void fragmentedRequestKeepsOurHalfOpenUntilItsLastFragment() {
        StreamLifecycle s = StreamLifecycle.open(null, FrameType.REQUEST_RESPONSE, F, true);
        s.received(FrameType.PAYLOAD, N); // an answer before the request ended cannot end the stream alone
        assertThat(s.ended()).isFalse();
        s.sent(FrameType.PAYLOAD, 0);
        assertThat(s.ended()).isTrue();
    }

    @Test
    void requestStreamEndsWithCompleteNotWithNext() {
        StreamLifecycle s = StreamLifecycle.open(null, FrameType.REQUEST_STREAM, 0, true);
        s.sent(FrameType.REQUEST_N, 0);
        s.received(FrameType.PAYLOAD, N);
        s.received(FrameType.PAYLOAD, N | C | F); // C on a fragment that is followed: not yet
        assertThat(s.ended()).isFalse();
        s.received(FrameType.PAYLOAD, C);
        assertThat(s.ended()).isTrue();

        StreamLifecycle cancelled = StreamLifecycle.open(null, FrameType.REQUEST_STREAM, 0, true);
        cancelled.sent(FrameType.CANCEL, 0);
        assertThat(cancelled.ended()).isTrue();

        StreamLifecycle theirs = StreamLifecycle.open(null, FrameType.REQUEST_STREAM, 0, false);
        theirs.sent(FrameType.PAYLOAD, N);
        assertThat(theirs.ended()).isFalse();
        theirs.received(FrameType.CANCEL, 0);
        assertThat(theirs.ended()).isTrue();
    }

    @Test
    void channelEndsWhenBothHalvesCompleted() {
        StreamLifecycle s = StreamLifecycle.open(null, FrameType.REQUEST_CHANNEL, 0, true);
        s.sent(FrameType.PAYLOAD, N);
        s.received(FrameType.PAYLOAD, C);
        assertThat(s.ended()).as("our half is still open").isFalse();
        assertThat(s.outboundOpen()).isTrue();
        s.sent(FrameType.PAYLOAD, C);
        assertThat(s.ended()).isTrue();

        StreamLifecycle completeAtOnce = StreamLifecycle.open(null, FrameType.REQUEST_CHANNEL, C, true);
        assertThat(completeAtOnce.outboundOpen()).isFalse();
        assertThat(completeAtOnce.inboundOpen()).isTrue();

        StreamLifecycle theirs = StreamLifecycle.open(null, FrameType.REQUEST_CHANNEL, 0, false);
        theirs.sent(FrameType.ERROR, 0);
        assertThat(theirs.ended()).isTrue();
    }

    @Test
    void fireAndForgetEndsWithItsRequestUnlessFragmented() {
        assertThat(StreamLifecycle.open(null, FrameType.REQUEST_FNF, 0, true).ended()).isTrue();
        assertThat(StreamLifecycle.open(null, FrameType.REQUEST_FNF, 0, false).ended()).isTrue();
        StreamLifecycle fragmented = StreamLifecycle.open(null, FrameType.REQUEST_FNF, F, true);
        assertThat(fragmented.ended()).isFalse();
        fragmented.sent(FrameType.PAYLOAD, 0);
        assertThat(fragmented.ended()).isTrue();
    }

    @Test
    void onlyRequestFramesOpenStreams() {
        assertThat(StreamLifecycle.opensStream(FrameType.REQUEST_RESPONSE)).isTrue();
        assertThat(StreamLifecycle.opensStream(FrameType.REQUEST_FNF)).isTrue();
        assertThat(StreamLifecycle.opensStream(FrameType.REQUEST_STREAM)).isTrue();
        assertThat(StreamLifecycle.opensStream(FrameType.REQUEST_CHANNEL)).isTrue();
        assertThat(StreamLifecycle.opensStream(FrameType.PAYLOAD)).isFalse();
        assertThat(StreamLifecycle.opensStream(FrameType.REQUEST_N)).isFalse();
        assertThat(StreamLifecycle.opensStream(FrameType.CANCEL)).isFalse();
    }
}
