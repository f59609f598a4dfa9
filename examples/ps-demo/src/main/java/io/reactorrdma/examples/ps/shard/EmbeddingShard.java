package io.reactorrdma.examples.ps.shard;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.reactorrdma.examples.ps.wire.FetchReply;
import io.reactorrdma.examples.ps.wire.FetchRequest;
import io.reactorrdma.examples.ps.wire.PushBatch;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One shard's rows of the embedding table: {@code rows x dimension} floats in ONE buffer from the
 * allocator given — on RDMA the registered allocator ({@code resources.alloc()}),
 * so fetch replies can be sent straight from the table. Key {@code k} lives on shard
 * {@code k % count} at row {@code k / count}; a key this shard does not hold is an
 * {@link IllegalArgumentException} naming the shard that does. Row {@code r} starts with the values
 * of {@link #initialValue} for its key.
 *
 * <p>Updates are SGD steps ({@code row -= learningRate * gradient}) written Hogwild-style: no lock,
 * so two pushes to one row may interleave float by float and a fetch may read a row half-updated.
 * That is acceptable for a parameter server: gradients are small and noisy anyway, SGD converges
 * under such sparse races (Recht et al., Hogwild!, 2011), and a lock per row would put contention on
 * the I/O threads that apply pushes. Every float is written whole (aligned 4-byte stores), so no
 * value is ever torn.
 *
 * <p>{@link #release()} drops the shard's reference to the table; replies still in flight hold their
 * own (retained slices), so the memory goes back once the last one is sent.
 */
public final class EmbeddingShard {

    private final ShardConfig config;
    private final ByteBuf table;
    /**
     * The table's memory for element access: absolute gets and puts, safe to share between threads (one bounds check
     * per call, not a recorded access per float).
     */
    private final ByteBuffer view;
    private final int rowBytes;
    private final AtomicBoolean released = new AtomicBoolean();

    /** Allocates the table from {@code alloc} and fills it with the initial values. */
    public EmbeddingShard(ShardConfig config, ByteBufAllocator alloc) {
        this.config = Objects.requireNonNull(config, "config");
        this.rowBytes = config.dimension() * Float.BYTES;
        int bytes = config.rows() * rowBytes;
        this.table = alloc.directBuffer(bytes, bytes);
        try {
            this.view = table.nioBuffer(0, bytes);
            for (int r = 0; r < config.rows(); r++) {
                long key = config.keyOf(r);
                for (int c = 0; c < config.dimension(); c++) {
                    view.putFloat(r * rowBytes + c * Float.BYTES, initialValue(config.seed(), key, c));
                }
            }
            table.writerIndex(bytes);
        } catch (RuntimeException e) {
            table.release();
            throw e;
        }
    }

    /**
     * The value key {@code key}'s row starts with at {@code column}: uniform in [-0.05, 0.05), a
     * pure function of the seed, so a client can check what it fetched without the shard.
     */
    public static float initialValue(long seed, long key, int column) {
        long z = seed + 0x9E3779B97F4A7C15L * (key * 65_537 + column + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return ((z >>> 40) / (float) (1 << 24) - 0.5f) / 10;
    }

    public ShardConfig config() {
        return config;
    }

    /** This shard's row of {@code key}; throws naming the right shard when the key lives elsewhere. */
    public int rowOf(long key) {
        int count = config.count();
        if (key < 0 || Math.floorMod(key, (long) count) != config.index()) {
            throw new IllegalArgumentException("key " + key + " is not held by shard " + config.index() + " of " + count
                    + " (key k lives on shard k % count); send it to shard "
                    + (key < 0 ? "none: keys are >= 0" : Long.toString(key % count)));
        }
        long row = key / count;
        if (row >= config.rows()) {
            throw new IllegalArgumentException("key " + key + " is row " + row + " of shard " + config.index() + ", which holds "
                    + config.rows() + " rows; the largest key here is " + config.keyOf(config.rows() - 1));
        }
        return (int) row;
    }

    /** Column {@code column} of {@code key}'s row, as it is now. */
    public float get(long key, int column) {
        Objects.checkIndex(column, config.dimension());
        return view.getFloat(rowOf(key) * rowBytes + column * Float.BYTES);
    }

    /** {@code key}'s row -= learningRate * gradient (no lock: see the class comment). */
    public void apply(long key, float[] gradient) {
        if (gradient.length != config.dimension()) {
            throw new IllegalArgumentException("a gradient for key " + key + " has " + gradient.length + " floats; this shard's rows have "
                    + config.dimension());
        }
        int at = rowOf(key) * rowBytes;
        float lr = config.learningRate();
        for (int c = 0; c < gradient.length; c++) {
            int i = at + c * Float.BYTES;
            view.putFloat(i, view.getFloat(i) - lr * gradient[c]);
        }
    }

    /**
     * Applies a {@link PushBatch} and returns the rows updated. Every key and the dimension are
     * checked before any row changes, so a bad batch changes nothing.
     */
    public int apply(ByteBuf batch) {
        int count = PushBatch.count(batch);
        int dimension = PushBatch.dimension(batch);
        checkDimension(dimension, "push batch");
        ByteBuffer in = PushBatch.view(batch);
        for (int i = 0; i < count; i++) {
            rowOf(PushBatch.key(in, i));
        }
        float lr = config.learningRate();
        for (int i = 0; i < count; i++) {
            int at = rowOf(PushBatch.key(in, i)) * rowBytes;
            for (int c = 0; c < dimension; c++) {
                int t = at + c * Float.BYTES;
                view.putFloat(t, view.getFloat(t) - lr * PushBatch.gradient(in, count, dimension, i, c));
            }
        }
        return count;
    }

    /**
     * The {@link FetchReply} to a {@link FetchRequest}: a composite of a header from {@code alloc}
     * and retained slices of the table (one per run of consecutive rows), so no row is copied to
     * build it. Every key is checked first; the caller owns (and releases) the reply.
     */
    public ByteBuf fetch(ByteBuf request, ByteBufAllocator alloc) {
        int count = FetchRequest.count(request);
        ByteBuffer keys = FetchRequest.keys(request);
        int runs = 0;
        int previous = -2;
        for (int i = 0; i < count; i++) {
            int row = rowOf(FetchRequest.key(keys, i));
            if (row != previous + 1) {
                runs++;
            }
            previous = row;
        }
        // room for every piece: a composite that outgrows its limit consolidates (copies) itself
        CompositeByteBuf reply = alloc.compositeDirectBuffer(runs + 1);
        try {
            reply.addComponent(true, FetchReply.header(alloc, count, config.dimension()));
            int first = -1;
            int length = 0;
            for (int i = 0; i < count; i++) {
                int row = rowOf(FetchRequest.key(keys, i));
                if (length > 0 && row == first + length) {
                    length++;
                    continue;
                }
                if (length > 0) {
                    reply.addComponent(true, table.retainedSlice(first * rowBytes, length * rowBytes));
                }
                first = row;
                length = 1;
            }
            if (length > 0) {
                reply.addComponent(true, table.retainedSlice(first * rowBytes, length * rowBytes));
            }
            return reply;
        } catch (RuntimeException e) {
            reply.release();
            throw e;
        }
    }

    /**
     * When the keys of a {@link FetchRequest} name one run of consecutive rows: a retained slice of
     * the table holding exactly those rows (the caller releases it), for the split form of
     * {@link FetchReply}; otherwise (or for an empty request) null. Every key is checked first.
     */
    public ByteBuf contiguousRows(ByteBuf request) {
        int count = FetchRequest.count(request);
        if (count == 0) {
            return null;
        }
        ByteBuffer keys = FetchRequest.keys(request);
        int first = rowOf(FetchRequest.key(keys, 0));
        for (int i = 1; i < count; i++) {
            if (rowOf(FetchRequest.key(keys, i)) != first + i) {
                for (int j = i + 1; j < count; j++) {
                    rowOf(FetchRequest.key(keys, j)); // a bad key still fails the whole request
                }
                return null;
            }
        }
        return table.retainedSlice(first * rowBytes, count * rowBytes);
    }

    /** Bytes of registered memory the table takes. */
    public long tableBytes() {
        return table.capacity();
    }

    /** Drops the shard's reference to the table (replies in flight keep theirs). */
    public void release() {
        if (released.compareAndSet(false, true)) {
            table.release();
        }
    }

    private void checkDimension(int dimension, String what) {
        if (dimension != config.dimension()) {
            throw new IllegalArgumentException("a " + what + " of dimension " + dimension + " reached shard " + config.index()
                    + ", whose rows have " + config.dimension() + " floats; send rows of dimension " + config.dimension());
        }
    }
}
