package io.reactorrdma.examples.psshard;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code ps.shard.*}: which part of the key space this shard holds and how its rows look. Key
 * {@code k} belongs to shard {@code k % count} and is row {@code k / count} there.
 *
 * @param index        this shard's number, 0 to count - 1 (default 0)
 * @param count        how many shards split the key space (default 1)
 * @param rows         rows (embeddings) this shard holds (default {@value #DEFAULT_ROWS})
 * @param dimension    floats per row (default {@value #DEFAULT_DIMENSION})
 * @param learningRate step of the SGD update a pushed gradient applies (default 0.01)
 * @param seed         seed of the rows' initial values (default 42)
 */
@ConfigurationProperties("ps.shard")
public record ShardProperties(Integer index, Integer count, Integer rows, Integer dimension, Float learningRate, Long seed) {

    /** Default of {@code ps.shard.rows}. */
    public static final int DEFAULT_ROWS = 100_000;
    /** Default of {@code ps.shard.dimension}. */
    public static final int DEFAULT_DIMENSION = 16;
    /** Default of {@code ps.shard.learning-rate}. */
    public static final float DEFAULT_LEARNING_RATE = 0.01f;
    /** Default of {@code ps.shard.seed}. */
    public static final long DEFAULT_SEED = 42L;

    /** Applies the defaults and checks the values; a bad one fails startup saying which and why. */
    public ShardProperties {
        index = index == null ? 0 : index;
        count = count == null ? 1 : count;
        rows = rows == null ? DEFAULT_ROWS : rows;
        dimension = dimension == null ? DEFAULT_DIMENSION : dimension;
        learningRate = learningRate == null ? DEFAULT_LEARNING_RATE : learningRate;
        seed = seed == null ? DEFAULT_SEED : seed;
        if (count < 1 || index < 0 || index >= count) {
            throw new IllegalArgumentException("ps.shard.index must be 0.." + (count - 1) + " for ps.shard.count="
                    + count + ", got " + index);
        }
        if (rows < 1 || dimension < 1 || (long) rows * dimension > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("ps.shard.rows (" + rows + ") and ps.shard.dimension (" + dimension
                    + ") must be positive with rows x dimension at most " + Integer.MAX_VALUE);
        }
        if (!(learningRate > 0)) {
            throw new IllegalArgumentException("ps.shard.learning-rate must be positive, got " + learningRate);
        }
    }
}
