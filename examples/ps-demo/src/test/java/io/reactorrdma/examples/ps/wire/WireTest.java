package io.reactorrdma.examples.ps.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WireTest {

    private final ByteBufAllocator alloc = new UnpooledByteBufAllocator(false);

    @Test
    void fetchRequestRoundTrip() {
        ByteBuf buf = FetchRequest.encode(alloc, 3L, 7L, Long.MAX_VALUE);
        try {
            assertThat(buf.readableBytes()).isEqualTo(4 + 3 * 8);
            assertThat(buf.getInt(0)).isEqualTo(3);
            assertThat(FetchRequest.decode(buf)).containsExactly(3L, 7L, Long.MAX_VALUE);
        } finally {
            buf.release();
        }
        ByteBuf range = FetchRequest.encodeRange(alloc, 2, 4, 3);
        try {
            assertThat(FetchRequest.decode(range)).containsExactly(2L, 6L, 10L);
        } finally {
            range.release();
        }
    }

    @Test
    void fetchReplyRoundTripFromTheReaderIndex() {
        ByteBuf buf = alloc.buffer().writeByte(99); // a byte before the reply: offsets are from the reader index
        ByteBuf reply = FetchReply.encode(alloc, 2, new float[]{1f, 2f}, new float[]{3f, -4f});
        buf.writeBytes(reply).readByte();
        reply.release();
        try {
            assertThat(FetchReply.count(buf)).isEqualTo(2);
            assertThat(FetchReply.dimension(buf)).isEqualTo(2);
            assertThat(FetchReply.value(buf, 2, 1, 1)).isEqualTo(-4f);
            assertThat(FetchReply.dot(buf, 1, new float[]{1f, 1f})).isEqualTo(-1.0);
        } finally {
            buf.release();
        }
    }

    @Test
    void fetchReplyInTheSplitForm() {
        ByteBuf header = FetchReply.header(alloc, 2, 2);
        ByteBuf rows = alloc.buffer().writeFloat(1f).writeFloat(2f).writeFloat(3f).writeFloat(-4f);
        ByteBuf empty = alloc.buffer(0);
        ByteBuf whole = FetchReply.encode(alloc, 2, new float[]{1f, 2f}, new float[]{3f, -4f});
        try {
            assertThat(FetchReply.count(header, rows)).isEqualTo(2);
            assertThat(FetchReply.dimension(header, rows)).isEqualTo(2);
            assertThat(FetchReply.dot(FetchReply.rows(header, rows), 1, new float[]{1f, 1f})).isEqualTo(-1.0);
            assertThat(FetchReply.count(empty, whole)).as("empty metadata: the one-part form").isEqualTo(2);
            assertThat(FetchReply.dot(FetchReply.rows(empty, whole), 1, new float[]{1f, 1f})).isEqualTo(-1.0);
            rows.writerIndex(12);
            assertThatThrownBy(() -> FetchReply.count(header, rows)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("the rows of a split reply, 2 rows of 2 floats, need exactly 16 bytes but it has 12");
            header.writeByte(0);
            assertThatThrownBy(() -> FetchReply.count(header, rows))
                    .hasMessageContaining("a split reply's header (its metadata) need exactly 8 bytes");
        } finally {
            header.release();
            rows.release();
            empty.release();
            whole.release();
        }
    }

    @Test
    void pushBatchAndAckRoundTrip() {
        ByteBuf buf = PushBatch.encode(alloc, 3, new long[]{5, 9}, 0, 2, (r, c) -> r * 10 + c);
        try {
            assertThat(buf.readableBytes()).isEqualTo((int) PushBatch.bytes(2, 3)).isEqualTo(8 + 16 + 24);
            assertThat(PushBatch.count(buf)).isEqualTo(2);
            assertThat(PushBatch.dimension(buf)).isEqualTo(3);
            assertThat(PushBatch.key(buf, 1)).isEqualTo(9);
            assertThat(PushBatch.gradient(buf, 2, 3, 1, 2)).isEqualTo(12f);
        } finally {
            buf.release();
        }
        ByteBuf ack = PushAck.encode(alloc, 17);
        try {
            assertThat(PushAck.decode(ack)).isEqualTo(17);
        } finally {
            ack.release();
        }
        assertThat(PushBatch.rowsFitting(20 * 1024, 64)).isEqualTo((20 * 1024 - 8) / (8 + 256));
    }

    @Test
    void malformedInputIsAClearError() {
        check(alloc.buffer().writeShort(1), () -> FetchRequest.count(held), "malformed fetch request", "too short for its count");
        check(alloc.buffer().writeInt(2).writeLong(1), () -> FetchRequest.count(held), "2 keys need exactly 20 bytes but it has 12");
        check(alloc.buffer().writeInt(-1), () -> FetchRequest.count(held), "count -1 is outside");
        check(alloc.buffer().writeInt(1).writeInt(2).writeFloat(1f), () -> FetchReply.count(held),
                "malformed fetch reply", "1 rows of 2 floats need exactly 16 bytes but it has 12", "[int count][int dimension]");
        check(alloc.buffer().writeInt(1).writeInt(Integer.MAX_VALUE), () -> FetchReply.count(held), "dimension 2147483647 is outside");
        check(alloc.buffer().writeInt(1).writeInt(1).writeLong(3), () -> PushBatch.count(held), "malformed push batch",
                "need exactly 20 bytes");
        check(alloc.buffer().writeInt(Integer.MAX_VALUE).writeInt(64), () -> PushBatch.count(held), "count 2147483647 is outside");
        check(alloc.buffer().writeByte(1), () -> PushAck.decode(held), "malformed push ack", "[int rowsUpdated]");
    }

    private ByteBuf held;

    private void check(ByteBuf buf, Runnable decode, String... messageParts) {
        held = buf;
        try {
            assertThatThrownBy(decode::run).isInstanceOf(IllegalArgumentException.class).message().contains(messageParts);
        } finally {
            buf.release();
        }
    }
}
