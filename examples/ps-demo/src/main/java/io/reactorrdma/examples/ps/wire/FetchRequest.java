package io.reactorrdma.examples.ps.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.nio.ByteBuffer;

import java.util.Objects;

/**
 * A fetch: the keys whose rows the caller wants from one shard.
 *
 * <pre>
 *   0                   4                  4 + 8 x count
 *   +-------------------+------------------+
 *   | int count         | count x long key |
 *   +-------------------+------------------+
 * </pre>
 *
 * Offsets are from the reader index; big-endian. {@code count} is at most {@link #MAX_KEYS}.
 */
public final class FetchRequest {

    /** The most keys one request may carry (a 1 GiB reply at dimension 1). */
    public static final int MAX_KEYS = 1 << 24;
    /** Bytes before the keys. */
    public static final int HEADER_BYTES = Integer.BYTES;
    static final String NAME = "fetch request";
    static final String LAYOUT = "[int count][count x long key]";

    private FetchRequest() {
    }

    /** {@code count} keys from {@code keys[from]} on, in a new buffer from {@code alloc}. */
    public static ByteBuf encode(ByteBufAllocator alloc, long[] keys, int from, int count) {
        Objects.checkFromIndexSize(from, count, keys.length);
        int size = bytes(count);
        ByteBuf buf = alloc.buffer(size);
        ByteBuffer w = Wire.writable(buf, size);
        w.putInt(count);
        for (int i = 0; i < count; i++) {
            w.putLong(keys[from + i]);
        }
        return buf.writerIndex(buf.writerIndex() + size);
    }

    /** All of {@code keys}, in a new buffer from {@code alloc}. */
    public static ByteBuf encode(ByteBufAllocator alloc, long... keys) {
        return encode(alloc, keys, 0, keys.length);
    }

    /**
     * {@code count} consecutive keys {@code first, first + stride, ...}: a block of rows of one shard when
     * {@code stride} is the shard count.
     */
    public static ByteBuf encodeRange(ByteBufAllocator alloc, long first, long stride, int count) {
        int size = bytes(count);
        ByteBuf buf = alloc.buffer(size);
        ByteBuffer w = Wire.writable(buf, size);
        w.putInt(count);
        for (int i = 0; i < count; i++) {
            w.putLong(first + i * stride);
        }
        return buf.writerIndex(buf.writerIndex() + size);
    }

    /** The size of a request for {@code count} keys. */
    public static int bytes(int count) {
        Wire.positive(count, "count", NAME, MAX_KEYS);
        return HEADER_BYTES + Long.BYTES * count;
    }

    /** Checks {@code buf}'s length against its count and returns the count. */
    public static int count(ByteBuf buf) {
        int count = Wire.intAt(buf, 0, "count", NAME);
        Wire.positive(count, "count", NAME, MAX_KEYS);
        Wire.exact(buf, HEADER_BYTES + (long) Long.BYTES * count, count + " keys", NAME);
        return count;
    }

    /** Key {@code i} of a request already checked by {@link #count}. */
    public static long key(ByteBuf buf, int i) {
        return buf.getLong(buf.readerIndex() + HEADER_BYTES + Long.BYTES * i);
    }

    /**
     * The keys of a request already checked by {@link #count}, as a view for {@link #key(ByteBuffer, int)}:
     * one bounds check for all of them instead of one per key (which a leak-detecting buffer records).
     */
    public static ByteBuffer keys(ByteBuf buf) {
        return buf.nioBuffer(buf.readerIndex() + HEADER_BYTES, buf.readableBytes() - HEADER_BYTES);
    }

    /** Key {@code i} of a {@link #keys} view. */
    public static long key(ByteBuffer keys, int i) {
        return keys.getLong(keys.position() + Long.BYTES * i);
    }

    /** Every key, checked (allocates the array: for tests and tools, not the hot path). */
    public static long[] decode(ByteBuf buf) {
        long[] keys = new long[count(buf)];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = key(buf, i);
        }
        return keys;
    }
}
