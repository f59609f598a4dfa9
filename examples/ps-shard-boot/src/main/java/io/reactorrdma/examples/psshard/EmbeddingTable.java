package io.reactorrdma.examples.psshard;

import org.springframework.stereotype.Component;

import java.util.SplittableRandom;

/**
 * This shard's rows of the embedding table, in one float array ({@code rows x dimension}), with
 * lookups by global key and an SGD update per pushed gradient. Row updates are atomic per row.
 */
@Component
public class EmbeddingTable {

    private final ShardProperties shard;
    private final float[] values;
    private final Object[] rowLocks;

    /** A table of {@code ps.shard.rows} rows, initialised from {@code ps.shard.seed} (uniform in ±0.05). */
    public EmbeddingTable(ShardProperties shard) {
        this.shard = shard;
        this.values = new float[shard.rows() * shard.dimension()];
        SplittableRandom random = new SplittableRandom(shard.seed() ^ shard.index());
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) (random.nextDouble() - 0.5) / 10;
        }
        this.rowLocks = new Object[Math.min(shard.rows(), 1024)];
        for (int i = 0; i < rowLocks.length; i++) {
            rowLocks[i] = new Object();
        }
    }

    /** Floats per row. */
    public int dimension() {
        return shard.dimension();
    }

    /** The row of {@code key}, copied. */
    public float[] row(long key) {
        int row = localRow(key);
        float[] copy = new float[shard.dimension()];
        synchronized (rowLocks[row % rowLocks.length]) {
            System.arraycopy(values, row * shard.dimension(), copy, 0, copy.length);
        }
        return copy;
    }

    /** {@code row(key) -= learningRate * gradient}. */
    public void apply(long key, float[] gradient) {
        if (gradient == null || gradient.length != shard.dimension()) {
            throw new IllegalArgumentException("a gradient for key " + key + " has " + (gradient == null ? 0 : gradient.length)
                    + " floats; this shard's rows have ps.shard.dimension=" + shard.dimension());
        }
        int row = localRow(key);
        int at = row * shard.dimension();
        float step = shard.learningRate();
        synchronized (rowLocks[row % rowLocks.length]) {
            for (int i = 0; i < gradient.length; i++) {
                values[at + i] -= step * gradient[i];
            }
        }
    }

    private int localRow(long key) {
        if (key < 0 || Math.floorMod(key, (long) shard.count()) != shard.index()) {
            throw new IllegalArgumentException("key " + key + " is not held by shard " + shard.index() + " of " + shard.count()
                    + " (key k belongs to shard k % count); send it to shard " + Math.floorMod(key, (long) shard.count()));
        }
        long row = key / shard.count();
        if (row >= shard.rows()) {
            throw new IllegalArgumentException("key " + key + " is row " + row + " of shard " + shard.index() + ", which holds "
                    + shard.rows() + " rows (ps.shard.rows); the largest key here is "
                    + ((long) (shard.rows() - 1) * shard.count() + shard.index()));
        }
        return (int) row;
    }
}
