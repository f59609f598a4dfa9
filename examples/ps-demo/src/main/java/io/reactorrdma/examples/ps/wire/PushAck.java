package io.reactorrdma.examples.ps.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * A shard's answer to one push batch on a push stream: how many rows it updated.
 *
 * <pre>
 *   0                  4
 *   +------------------+
 *   | int rowsUpdated  |
 *   +------------------+
 * </pre>
 *
 * Big-endian, from the reader index.
 */
public final class PushAck {

    /** The size of an ack. */
    public static final int BYTES = Integer.BYTES;
    static final String NAME = "push ack";
    static final String LAYOUT = "[int rowsUpdated]";

    private PushAck() {
    }

    /** An ack for {@code rowsUpdated} rows, in a new buffer from {@code alloc}. */
    public static ByteBuf encode(ByteBufAllocator alloc, int rowsUpdated) {
        Wire.positive(rowsUpdated, "rowsUpdated", NAME, FetchRequest.MAX_KEYS);
        return alloc.buffer(BYTES).writeInt(rowsUpdated);
    }

    /** The rows updated, after checking the length and value. */
    public static int decode(ByteBuf buf) {
        Wire.exact(buf, BYTES, "an ack", NAME);
        int rows = buf.getInt(buf.readerIndex());
        Wire.positive(rows, "rowsUpdated", NAME, FetchRequest.MAX_KEYS);
        return rows;
    }
}
