package io.reactorrdma.engine;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

class RejectReasonTest {

    @Test
    void aReasonTravelsWithinTheRejectLimit() {
        assertThat(RejectReason.decode(RejectReason.encode("thread domain full"))).isEqualTo("thread domain full");
        String longOne = "é".repeat(200);
        ByteBuffer encoded = RejectReason.encode(longOne);
        assertThat(encoded.remaining()).isLessThanOrEqualTo(RejectReason.MAX_SIZE);
        String decoded = RejectReason.decode(encoded);
        assertThat(longOne).startsWith(decoded);
        assertThat(decoded).hasSize((RejectReason.MAX_SIZE - 4) / 2).doesNotContain("\uFFFD");
    }

    @Test
    void privateDataThatIsNoReasonDecodesToNull() {
        assertThat(RejectReason.decode(ByteBuffer.allocate(0))).isNull();
        assertThat(RejectReason.decode(ByteBuffer.wrap(new byte[]{1, 2, 3, 4, 5}))).isNull();
    }
}
