package io.reactorrdma.perf.echo;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class OwnReplyTest {

    @Test
    void answersWithTheSameBytesFromOneBufferOfItsOwnPerSize() {
        OwnReply own = new OwnReply(new UnpooledByteBufAllocator(true));
        ByteBuf first = Unpooled.directBuffer().writeBytes("abcdefgh".getBytes(StandardCharsets.US_ASCII));
        first.readerIndex(2); // what is answered is the readable part

        ByteBuf a = own.answer(first);
        assertThat(ByteBufUtil.equals(a, first)).isTrue();
        assertThat(a.memoryAddress()).as("not the message's memory").isNotEqualTo(first.memoryAddress() + 2);
        ByteBuf b = own.answer(first);
        assertThat(b.memoryAddress()).as("the same buffer again: no copy per message").isEqualTo(a.memoryAddress());

        ByteBuf longer = Unpooled.directBuffer().writeBytes("0123456789".getBytes(StandardCharsets.US_ASCII));
        ByteBuf c = own.answer(longer);
        assertThat(ByteBufUtil.equals(c, longer)).isTrue();
        assertThat(a.refCnt()).as("the first buffer is held by its replies only").isEqualTo(2);

        a.release();
        b.release();
        assertThat(a.refCnt()).as("released once its replies were").isZero();
        own.close();
        assertThat(c.refCnt()).as("the reply in flight keeps its buffer").isEqualTo(1);
        c.release();
        assertThat(c.refCnt()).isZero();
        own.close(); // twice is harmless
        ByteBuf late = own.answer(first);
        assertThat(late).as("after the close nothing new is held: the message itself goes back").isSameAs(first);
        assertThat(first.refCnt()).isEqualTo(2);
        late.release();
        first.release();
        longer.release();
    }
}
