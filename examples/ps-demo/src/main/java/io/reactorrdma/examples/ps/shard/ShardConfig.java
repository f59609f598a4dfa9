package io.reactorrdma.examples.ps.shard;

/**
 * What one shard holds and how it learns: shard {@code index} of {@code count}, {@code rows} rows of
 * {@code dimension} floats, SGD with {@code learningRate}, initial values from {@code seed}, and an
 * optional artificial delay of every fetch ({@code slowMillis}, 0 = none: a slow replica for
 * recovery experiments). Immutable; validated on construction; the {@code with*} methods return
 * copies.
 */
public final class ShardConfig {

    /** Rows per shard: 65,536 (16 MiB at the default dimension). */
    public static final int DEFAULT_ROWS = 65_536;
    /** Floats per row: 64 (256 bytes). */
    public static final int DEFAULT_DIMENSION = 64;
    /** The SGD step size: 0.01. */
    public static final float DEFAULT_LEARNING_RATE = 0.01f;
    /** The seed of the initial values: 42. */
    public static final long DEFAULT_SEED = 42L;
    /** Extra delay of each fetch reply: 0 ms. */
    public static final int DEFAULT_SLOW_MILLIS = 0;
    /** The largest table one shard may hold: 1 GiB (one buffer). */
    public static final long MAX_TABLE_BYTES = 1L << 30;

    private final int index;
    private final int count;
    private final int rows;
    private final int dimension;
    private final float learningRate;
    private final long seed;
    private final int slowMillis;

    /** Every setting; see the class comment. */
    public ShardConfig(int index, int count, int rows, int dimension, float learningRate, long seed, int slowMillis) {
        if (count < 1) {
            throw new IllegalArgumentException("count (the number of shards) must be at least 1, got " + count);
        }
        if (index < 0 || index >= count) {
            throw new IllegalArgumentException("index must be in 0.." + (count - 1) + " for " + count + " shards, got " + index);
        }
        if (rows < 1 || dimension < 1) {
            throw new IllegalArgumentException("rows and dimension must be at least 1, got rows=" + rows + " dimension=" + dimension);
        }
        if ((long) rows * dimension * Float.BYTES > MAX_TABLE_BYTES) {
            throw new IllegalArgumentException("a table of " + rows + " rows x " + dimension + " floats is "
                    + ((long) rows * dimension * Float.BYTES >> 20) + " MiB, over the " + (MAX_TABLE_BYTES >> 20)
                    + " MiB one shard holds; use more shards or fewer rows");
        }
        if (!(learningRate > 0) || Float.isInfinite(learningRate)) {
            throw new IllegalArgumentException("learningRate must be a positive number, got " + learningRate);
        }
        if (slowMillis < 0) {
            throw new IllegalArgumentException("slowMillis must be 0 (no delay) or more, got " + slowMillis);
        }
        this.index = index;
        this.count = count;
        this.rows = rows;
        this.dimension = dimension;
        this.learningRate = learningRate;
        this.seed = seed;
        this.slowMillis = slowMillis;
    }

    /** Shard {@code index} of {@code count} with every other setting at its default. */
    public static ShardConfig of(int index, int count) {
        return new ShardConfig(index, count, DEFAULT_ROWS, DEFAULT_DIMENSION, DEFAULT_LEARNING_RATE, DEFAULT_SEED, DEFAULT_SLOW_MILLIS);
    }

    /** A copy with {@code rows} rows. */
    public ShardConfig withRows(int rows) {
        return new ShardConfig(index, count, rows, dimension, learningRate, seed, slowMillis);
    }

    /** A copy with rows of {@code dimension} floats. */
    public ShardConfig withDimension(int dimension) {
        return new ShardConfig(index, count, rows, dimension, learningRate, seed, slowMillis);
    }

    /** A copy with SGD step {@code learningRate}. */
    public ShardConfig withLearningRate(float learningRate) {
        return new ShardConfig(index, count, rows, dimension, learningRate, seed, slowMillis);
    }

    /** A copy whose initial values come from {@code seed}. */
    public ShardConfig withSeed(long seed) {
        return new ShardConfig(index, count, rows, dimension, learningRate, seed, slowMillis);
    }

    /** A copy that delays each fetch reply by {@code slowMillis} ms (0: none). */
    public ShardConfig withSlowMillis(int slowMillis) {
        return new ShardConfig(index, count, rows, dimension, learningRate, seed, slowMillis);
    }

    /** This shard's index, 0-based. */
    public int index() {
        return index;
    }

    /** The number of shards the keys are spread over. */
    public int count() {
        return count;
    }

    /** Rows this shard holds. */
    public int rows() {
        return rows;
    }

    /** Floats per row. */
    public int dimension() {
        return dimension;
    }

    /** The SGD step size. */
    public float learningRate() {
        return learningRate;
    }

    /** The seed of the initial values. */
    public long seed() {
        return seed;
    }

    /** Extra delay of each fetch reply in milliseconds (0: none). */
    public int slowMillis() {
        return slowMillis;
    }

    /** The key of this shard's row {@code row}: {@code row * count + index}. */
    public long keyOf(int row) {
        return (long) row * count + index;
    }

    @Override
    public String toString() {
        return "ShardConfig{index=" + index + ", count=" + count + ", rows=" + rows + ", dimension=" + dimension
                + ", learningRate=" + learningRate + ", seed=" + seed + ", slowMillis=" + slowMillis + "}";
    }
}
