package io.reactorrdma.examples.ps.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.nio.ByteBuffer;

/**
 * Gradient rows for one shard: key {@code i}'s gradient is gradient row {@code i}.
 *
 * <pre>
 *   0           4               8                  8 + 8 x count                 + 4 x count x dimension
 *   +-----------+---------------+------------------+-----------------------------+
 *   | int count | int dimension | count x long key | count x dimension x float   |
 *   +-----------+---------------+------------------+-----------------------------+
 * </pre>
 *
 * Offsets are from the reader index; big-endian.
 */
public final class PushBatch {

    /** Bytes before the keys. */
    public static final int HEADER_BYTES = 2 * Integer.BYTES;
    static final String NAME = "push batch";
    static final String LAYOUT = "[int count][int dimension][count x long key][count x dimension x float]";

    /** The gradient of row {@code row}, column {@code column} of a batch being encoded. */
    @FunctionalInterface
    public interface Gradients {
        float value(int row, int column);
    }

    private PushBatch() {
    }

    /**
     * A batch of {@code count} keys from {@code keys[from]} on with their gradients, in a new buffer
     * from {@code alloc}.
     */
    public static ByteBuf encode(ByteBufAllocator alloc, int dimension, long[] keys, int from, int count, Gradients gradients) {
        java.util.Objects.checkFromIndexSize(from, count, keys.length);
        Wire.positive(dimension, "dimension", NAME, FetchReply.MAX_DIMENSION);
        int size = (int) bytes(count, dimension);
        ByteBuf buf = alloc.buffer(size);
        ByteBuffer w = Wire.writable(buf, size);
        w.putInt(count).putInt(dimension);
        for (int i = 0; i < count; i++) {
            w.putLong(keys[from + i]);
        }
        return writeGradients(buf, w, size, count, dimension, gradients);
    }

    /** A batch of the {@code count} keys {@code first, first + stride, ...} (a block of one shard's rows). */
    public static ByteBuf encodeRange(ByteBufAllocator alloc, int dimension, long first, long stride, int count, Gradients gradients) {
        Wire.positive(count, "count", NAME, FetchRequest.MAX_KEYS);
        Wire.positive(dimension, "dimension", NAME, FetchReply.MAX_DIMENSION);
        int size = (int) bytes(count, dimension);
        ByteBuf buf = alloc.buffer(size);
        ByteBuffer w = Wire.writable(buf, size);
        w.putInt(count).putInt(dimension);
        for (int i = 0; i < count; i++) {
            w.putLong(first + i * stride);
        }
        return writeGradients(buf, w, size, count, dimension, gradients);
    }

    private static ByteBuf writeGradients(ByteBuf buf, ByteBuffer w, int size, int count, int dimension, Gradients gradients) {
        for (int i = 0; i < count; i++) {
            for (int c = 0; c < dimension; c++) {
                w.putFloat(gradients.value(i, c));
            }
        }
        return buf.writerIndex(buf.writerIndex() + size);
    }

    /** The size of a batch of {@code count} rows of {@code dimension} floats. */
    public static long bytes(int count, int dimension) {
        return HEADER_BYTES + (long) Long.BYTES * count + (long) Float.BYTES * count * dimension;
    }

    /** The most rows of {@code dimension} floats a batch of at most {@code bytes} holds (at least 1). */
    public static int rowsFitting(long bytes, int dimension) {
        return (int) Math.max(1, Math.min(FetchRequest.MAX_KEYS, (bytes - HEADER_BYTES) / (Long.BYTES + (long) Float.BYTES * dimension)));
    }

    /** Checks {@code buf}'s length against its count and dimension and returns the count. */
    public static int count(ByteBuf buf) {
        int count = Wire.intAt(buf, 0, "count", NAME);
        int dimension = Wire.intAt(buf, Integer.BYTES, "dimension", NAME);
        Wire.positive(count, "count", NAME, FetchRequest.MAX_KEYS);
        Wire.positive(dimension, "dimension", NAME, FetchReply.MAX_DIMENSION);
        Wire.exact(buf, bytes(count, dimension), count + " rows of " + dimension + " floats", NAME);
        return count;
    }

    /** The dimension of a batch already checked by {@link #count}. */
    public static int dimension(ByteBuf buf) {
        return buf.getInt(buf.readerIndex() + Integer.BYTES);
    }

    /** Key {@code i} of a checked batch. */
    public static long key(ByteBuf buf, int i) {
        return buf.getLong(buf.readerIndex() + HEADER_BYTES + Long.BYTES * i);
    }

    /** Gradient row {@code row}, column {@code column} of a checked batch of {@code count} rows and {@code dimension}. */
    public static float gradient(ByteBuf buf, int count, int dimension, int row, int column) {
        return buf.getFloat(gradientOffset(buf, count, dimension, row) + Float.BYTES * column);
    }

    /**
     * A checked batch as one big-endian view from its start, for {@link #key(ByteBuffer, int)} and
     * {@link #gradient(ByteBuffer, int, int, int, int)}.
     */
    public static ByteBuffer view(ByteBuf buf) {
        return buf.nioBuffer(buf.readerIndex(), buf.readableBytes());
    }

    /** Key {@code i} of a {@link #view}. */
    public static long key(ByteBuffer view, int i) {
        return view.getLong(view.position() + HEADER_BYTES + Long.BYTES * i);
    }

    /** Gradient row {@code row}, column {@code column} of a {@link #view} of a batch of {@code count} rows and {@code dimension}. */
    public static float gradient(ByteBuffer view, int count, int dimension, int row, int column) {
        return view.getFloat(view.position() + HEADER_BYTES + Long.BYTES * count + Float.BYTES * (row * dimension + column));
    }

    /** The absolute index of gradient row {@code row} of a checked batch. */
    public static int gradientOffset(ByteBuf buf, int count, int dimension, int row) {
        return buf.readerIndex() + HEADER_BYTES + Long.BYTES * count + Float.BYTES * row * dimension;
    }
}
