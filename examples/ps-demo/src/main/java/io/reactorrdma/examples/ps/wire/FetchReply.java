package io.reactorrdma.examples.ps.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.nio.ByteBuffer;

/**
 * The rows a fetch asked for, in the order of its keys.
 *
 * <pre>
 *   0             4                 8                                  8 + 4 x count x dimension
 *   +-------------+-----------------+----------------------------------+
 *   | int count   | int dimension   | count x dimension x float        |
 *   +-------------+-----------------+----------------------------------+
 * </pre>
 *
 * Offsets are from the reader index; big-endian; row {@code r}, column {@code c} is the float at
 * {@code 8 + 4 x (r x dimension + c)}. A shard builds the reply as a composite of the
 * {@link #header} and slices of its table, so the rows are not copied to build it.
 *
 * <p><b>Split form.</b> When the rows asked for are one run of consecutive rows of the table, the
 * shard sends the same bytes in two parts: the 8-byte header as the payload's <em>metadata</em> and
 * the rows — one slice of the table — as its <em>data</em>. RSocket's frame is then three flat
 * pieces of registered memory (frame header, metadata, data), which the RDMA engine gathers without
 * a copy; the one-part form nests a composite inside RSocket's and is copied once on send. The
 * two-argument methods ({@link #count(ByteBuf, ByteBuf)}, {@link #dimension(ByteBuf, ByteBuf)},
 * {@link #rows(ByteBuf, ByteBuf)}) read either form: pass the payload's metadata (empty for the
 * one-part form) and data.
 */
public final class FetchReply {

    /** Bytes before the rows. */
    public static final int HEADER_BYTES = 2 * Integer.BYTES;
    /** The largest dimension a reply may declare. */
    public static final int MAX_DIMENSION = 1 << 16;
    static final String NAME = "fetch reply";
    static final String LAYOUT = "[int count][int dimension][count x dimension x float]";

    private FetchReply() {
    }

    /** The 8-byte header alone, in a new buffer from {@code alloc}: the rows follow in other buffers. */
    public static ByteBuf header(ByteBufAllocator alloc, int count, int dimension) {
        Wire.positive(count, "count", NAME, FetchRequest.MAX_KEYS);
        Wire.positive(dimension, "dimension", NAME, MAX_DIMENSION);
        return alloc.buffer(HEADER_BYTES).writeInt(count).writeInt(dimension);
    }

    /** A whole reply from {@code rows} (each {@code dimension} floats), in one new buffer: for tests and tools. */
    public static ByteBuf encode(ByteBufAllocator alloc, int dimension, float[]... rows) {
        ByteBuf buf = alloc.buffer(HEADER_BYTES + Float.BYTES * dimension * rows.length);
        buf.writeInt(rows.length).writeInt(dimension);
        for (float[] row : rows) {
            if (row.length != dimension) {
                buf.release();
                throw new IllegalArgumentException("a row has " + row.length + " floats, the reply's dimension is " + dimension
                        + "; give rows of exactly dimension floats");
            }
            for (float v : row) {
                buf.writeFloat(v);
            }
        }
        return buf;
    }

    /** The size of a reply of {@code count} rows of {@code dimension} floats. */
    public static long bytes(int count, int dimension) {
        return HEADER_BYTES + (long) Float.BYTES * count * dimension;
    }

    /** Checks {@code buf}'s length against its count and dimension and returns the count. */
    public static int count(ByteBuf buf) {
        int count = Wire.intAt(buf, 0, "count", NAME);
        int dimension = Wire.intAt(buf, Integer.BYTES, "dimension", NAME);
        Wire.positive(count, "count", NAME, FetchRequest.MAX_KEYS);
        Wire.positive(dimension, "dimension", NAME, MAX_DIMENSION);
        Wire.exact(buf, bytes(count, dimension), count + " rows of " + dimension + " floats", NAME);
        return count;
    }

    /**
     * Checks a reply in either form — {@code metadata} empty and {@code data} the whole reply, or
     * {@code metadata} the 8-byte header and {@code data} the rows — and returns the count.
     */
    public static int count(ByteBuf metadata, ByteBuf data) {
        if (!metadata.isReadable()) {
            return count(data);
        }
        Wire.exact(metadata, HEADER_BYTES, "a split reply's header (its metadata)", NAME);
        int count = metadata.getInt(metadata.readerIndex());
        int dimension = metadata.getInt(metadata.readerIndex() + Integer.BYTES);
        Wire.positive(count, "count", NAME, FetchRequest.MAX_KEYS);
        Wire.positive(dimension, "dimension", NAME, MAX_DIMENSION);
        Wire.exact(data, bytes(count, dimension) - HEADER_BYTES,
                "the rows of a split reply, " + count + " rows of " + dimension + " floats,", NAME);
        return count;
    }

    /** The dimension of a reply in either form, already checked by {@link #count(ByteBuf, ByteBuf)}. */
    public static int dimension(ByteBuf metadata, ByteBuf data) {
        return dimension(metadata.isReadable() ? metadata : data);
    }

    /**
     * The rows of a reply in either form, already checked by {@link #count(ByteBuf, ByteBuf)}, as one view (see
     * {@link #rows(ByteBuf)}).
     */
    public static ByteBuffer rows(ByteBuf metadata, ByteBuf data) {
        return metadata.isReadable() ? data.nioBuffer(data.readerIndex(), data.readableBytes()) : rows(data);
    }

    /** The dimension of a reply already checked by {@link #count}. */
    public static int dimension(ByteBuf buf) {
        return buf.getInt(buf.readerIndex() + Integer.BYTES);
    }

    /** Row {@code row}, column {@code column} of a checked reply of dimension {@code dimension}. */
    public static float value(ByteBuf buf, int dimension, int row, int column) {
        return buf.getFloat(buf.readerIndex() + HEADER_BYTES + Float.BYTES * (row * dimension + column));
    }

    /**
     * The rows of a checked reply as one big-endian view: one bounds check for all of them (each
     * {@code getFloat} on a leak-detecting buffer is recorded). A reply in one piece — as a received
     * frame is — is viewed in place; one in several pieces is merged into a copy.
     */
    public static ByteBuffer rows(ByteBuf buf) {
        return buf.nioBuffer(buf.readerIndex() + HEADER_BYTES, buf.readableBytes() - HEADER_BYTES);
    }

    /** The dot product of row {@code row} of a {@link #rows} view with {@code vector} (of the reply's dimension). */
    public static double dot(ByteBuffer rows, int row, float[] vector) {
        int at = rows.position() + Float.BYTES * row * vector.length;
        double sum = 0;
        for (int c = 0; c < vector.length; c++) {
            sum += rows.getFloat(at + Float.BYTES * c) * (double) vector[c];
        }
        return sum;
    }

    /** The dot product of row {@code row} of a checked reply with {@code vector} (of the reply's dimension). */
    public static double dot(ByteBuf buf, int row, float[] vector) {
        return dot(buf.nioBuffer(buf.readerIndex() + HEADER_BYTES + Float.BYTES * row * vector.length,
                Float.BYTES * vector.length), 0, vector);
    }
}
