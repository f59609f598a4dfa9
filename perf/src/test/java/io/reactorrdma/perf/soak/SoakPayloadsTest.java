package io.reactorrdma.perf.soak;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The soak's payloads prove themselves intact, and a flipped byte anywhere shows. */
class SoakPayloadsTest {

    private final ByteBufAllocator alloc = UnpooledByteBufAllocator.DEFAULT;

    @Test
    void messagesOfEverySizeVerifyAndCarryTheirSequence() {
        for (int size : new int[]{0, 1, 15, 16, 17, 1000, 65_537}) {
            ByteBuf m = SoakPayloads.message(alloc, 42, size);
            try {
                assertThat(m.readableBytes()).isEqualTo(size);
                assertThat(SoakPayloads.verify(m)).as("size %d", size).isEqualTo(SoakPayloads.STATUS_OK);
                assertThat(SoakPayloads.sequenceOf(m)).isEqualTo(size < SoakPayloads.HEADER ? SoakPayloads.tinyKey(42, size) : 42);
                assertThat(SoakPayloads.isDirectWriteCheck(m)).isFalse();
            } finally {
                m.release();
            }
        }
    }

    @Test
    void shortMessagesOfOneSizeCarryTheirSequencesTag() {
        ByteBuf a = SoakPayloads.message(alloc, 300, 7);
        ByteBuf b = SoakPayloads.message(alloc, 301, 7);
        assertThat(SoakPayloads.sequenceOf(a)).isNotEqualTo(SoakPayloads.sequenceOf(b));
        assertThat(SoakPayloads.isTinyKey(SoakPayloads.sequenceOf(a))).isTrue();
        assertThat(SoakPayloads.isTinyKey(~5L)).as("a direct write's check").isFalse();
        assertThat(SoakPayloads.verify(a)).isEqualTo(SoakPayloads.STATUS_OK);
        a.release();
        b.release();
    }

    @Test
    void aFlippedByteOrAShortMessageIsCaught() {
        ByteBuf m = SoakPayloads.message(alloc, 7, 5000);
        m.setByte(4321, m.getByte(4321) ^ 1);
        assertThat(SoakPayloads.verify(m)).isEqualTo(SoakPayloads.STATUS_BAD_CRC);
        m.release();
        ByteBuf cut = SoakPayloads.message(alloc, 7, 5000);
        cut.writerIndex(4000);
        assertThat(SoakPayloads.verify(cut)).isEqualTo(SoakPayloads.STATUS_BAD_LENGTH);
        cut.release();
        ByteBuf tiny = SoakPayloads.message(alloc, 7, 9);
        tiny.setByte(3, tiny.getByte(3) ^ 0x40);
        assertThat(SoakPayloads.verify(tiny)).isEqualTo(SoakPayloads.STATUS_BAD_TINY);
        tiny.release();
    }

    @Test
    void aDirectWriteCheckMatchesTheSlotOnlyWhenTheBytesLanded() {
        ByteBuf payload = SoakPayloads.directWrite(alloc, 3, 300);
        ByteBuf check = SoakPayloads.directWriteCheck(alloc, 3, payload);
        ByteBuf slot = alloc.directBuffer(1024, 1024);
        slot.setZero(0, 1024);
        assertThat(SoakPayloads.isDirectWriteCheck(check)).isTrue();
        assertThat(SoakPayloads.verifyDirectWrite(check, slot)).isEqualTo(SoakPayloads.STATUS_BAD_DIRECT_WRITE);
        slot.setBytes(0, payload, payload.readerIndex(), payload.readableBytes());
        assertThat(SoakPayloads.verifyDirectWrite(check, slot)).isEqualTo(SoakPayloads.STATUS_OK);
        payload.release();
        check.release();
        slot.release();
    }
}
