package io.reactorrdma.engine;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The text of an RNDV_REFUSE is cut to what the wire allows ({@link WireHeader#MAX_REFUSE_TEXT}
 * and the peer's eager size): the cut must fall between characters, so the sender's error message
 * never ends in a malformed sequence (shown as U+FFFD).
 */
class RefusalTextTest {

    /** Decodes strictly: a split character throws instead of becoming U+FFFD. */
    private static String strictUtf8(byte[] bytes, int n) throws CharacterCodingException {
        return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes, 0, n)).toString();
    }

    @Test
    void aCutAcrossMultiByteCharactersBacksOffToACharacterBoundary() throws Exception {
        // 2-, 3- and 4-byte characters after an ASCII prefix, so that every offset inside each is tried
        String reason = "x".repeat(190) + "é€𝄞ü€𝄞é";
        byte[] utf8 = reason.getBytes(StandardCharsets.UTF_8);
        for (int limit = 185; limit <= utf8.length; limit++) {
            int n = Engine.utf8Prefix(utf8, limit);
            assertThat(n).as("limit %d", limit).isLessThanOrEqualTo(limit).isGreaterThan(limit - 4);
            String text = strictUtf8(utf8, n);
            assertThat(reason).as("limit %d", limit).startsWith(text);
            assertThat(text).doesNotContain("\uFFFD");
        }
    }

    @Test
    void textWithinTheLimitIsKeptWhole() throws Exception {
        byte[] utf8 = "no room: é€𝄞".getBytes(StandardCharsets.UTF_8);
        assertThat(Engine.utf8Prefix(utf8, 200)).isEqualTo(utf8.length);
        assertThat(Engine.utf8Prefix(utf8, utf8.length)).isEqualTo(utf8.length);
        assertThat(strictUtf8(utf8, Engine.utf8Prefix(utf8, 200))).isEqualTo("no room: é€𝄞");
    }

    @Test
    void aLimitInsideTheFirstCharacterLeavesNoText() {
        byte[] utf8 = "𝄞abc".getBytes(StandardCharsets.UTF_8);
        assertThat(Engine.utf8Prefix(utf8, 3)).isZero();
        assertThat(Engine.utf8Prefix(utf8, 0)).isZero();
        assertThat(Engine.utf8Prefix(utf8, -5)).isZero();
        assertThat(Arrays.copyOf(utf8, Engine.utf8Prefix(utf8, 4))).isEqualTo("𝄞".getBytes(StandardCharsets.UTF_8));
    }
}
