package io.reactorrdma.examples.ps.trainer;

import io.reactorrdma.examples.ps.shard.ShardConfig;

import java.time.Duration;

/**
 * What one {@link Trainer} does per step: fetch {@code fetchRows} consecutive rows from every shard,
 * spend {@code computeNanos} of real CPU on a synthetic forward/backward pass over them, then push a
 * gradient batch of a {@link PushSizes} size (mean {@code pushMeanBytes}, p99 {@code pushP99Bytes})
 * to every shard. {@code dimension} and {@code rowsPerShard} must match the shards'. Draws come from
 * {@code seed}: give each trainer its own ({@link #forTrainer}). Immutable; {@code with*} return copies.
 */
public final class TrainerSettings {

    /** CPU per step: 200 µs. */
    public static final long DEFAULT_COMPUTE_NANOS = 200_000;
    /** Floats per row: as the shards' default. */
    public static final int DEFAULT_DIMENSION = ShardConfig.DEFAULT_DIMENSION;
    /** Rows each shard holds: as the shards' default. */
    public static final int DEFAULT_ROWS_PER_SHARD = ShardConfig.DEFAULT_ROWS;
    /** Rows fetched from each shard per step: 16 (a 4 KiB reply at the default dimension). */
    public static final int DEFAULT_FETCH_ROWS = 16;
    /** The seed: 7. */
    public static final long DEFAULT_SEED = 7L;
    /** Deadline of a step's fetch fan-out and of each push's ack: 10 s (generous on a loaded host). */
    public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(10);

    private final long computeNanos;
    private final int dimension;
    private final int rowsPerShard;
    private final int fetchRows;
    private final long seed;
    private final Duration deadline;
    private final double pushMeanBytes;
    private final double pushP99Bytes;

    private TrainerSettings(long computeNanos, int dimension, int rowsPerShard, int fetchRows, long seed, Duration deadline,
                          double pushMeanBytes, double pushP99Bytes) {
        if (computeNanos < 0 || dimension < 1 || rowsPerShard < 1 || fetchRows < 1 || fetchRows > rowsPerShard) {
            throw new IllegalArgumentException(
                    "computeNanos must be >= 0, dimension, rowsPerShard and fetchRows >= 1, fetchRows <= rowsPerShard;"
                    + " got computeNanos=" + computeNanos + " dimension=" + dimension + " rowsPerShard=" + rowsPerShard
                    + " fetchRows=" + fetchRows);
        }
        if (deadline.isNegative() || deadline.isZero()) {
            throw new IllegalArgumentException("deadline must be positive, got " + deadline);
        }
        new PushSizes(seed, pushMeanBytes, pushP99Bytes); // validates the pair
        this.computeNanos = computeNanos;
        this.dimension = dimension;
        this.rowsPerShard = rowsPerShard;
        this.fetchRows = fetchRows;
        this.seed = seed;
        this.deadline = deadline;
        this.pushMeanBytes = pushMeanBytes;
        this.pushP99Bytes = pushP99Bytes;
    }

    /** Every setting at its default. */
    public static TrainerSettings defaults() {
        return new TrainerSettings(DEFAULT_COMPUTE_NANOS, DEFAULT_DIMENSION, DEFAULT_ROWS_PER_SHARD, DEFAULT_FETCH_ROWS, DEFAULT_SEED,
                DEFAULT_DEADLINE, PushSizes.DEFAULT_MEAN_BYTES, PushSizes.DEFAULT_P99_BYTES);
    }

    /** A copy spending {@code v} ns of CPU per step. */
    public TrainerSettings withComputeNanos(long v) {
        return new TrainerSettings(v, dimension, rowsPerShard, fetchRows, seed, deadline, pushMeanBytes, pushP99Bytes);
    }

    /** A copy for rows of {@code v} floats. */
    public TrainerSettings withDimension(int v) {
        return new TrainerSettings(computeNanos, v, rowsPerShard, fetchRows, seed, deadline, pushMeanBytes, pushP99Bytes);
    }

    /** A copy for shards of {@code v} rows. */
    public TrainerSettings withRowsPerShard(int v) {
        return new TrainerSettings(computeNanos, dimension, v, fetchRows, seed, deadline, pushMeanBytes, pushP99Bytes);
    }

    /** A copy fetching {@code v} rows per shard per step. */
    public TrainerSettings withFetchRows(int v) {
        return new TrainerSettings(computeNanos, dimension, rowsPerShard, v, seed, deadline, pushMeanBytes, pushP99Bytes);
    }

    /** A copy drawing from seed {@code v}. */
    public TrainerSettings withSeed(long v) {
        return new TrainerSettings(computeNanos, dimension, rowsPerShard, fetchRows, v, deadline, pushMeanBytes, pushP99Bytes);
    }

    /** A copy whose fetches and push acks must come within {@code v}. */
    public TrainerSettings withDeadline(Duration v) {
        return new TrainerSettings(computeNanos, dimension, rowsPerShard, fetchRows, seed, v, pushMeanBytes, pushP99Bytes);
    }

    /** Push sizes with this mean and p99 (bytes). */
    public TrainerSettings withPushSizes(double meanBytes, double p99Bytes) {
        return new TrainerSettings(computeNanos, dimension, rowsPerShard, fetchRows, seed, deadline, meanBytes, p99Bytes);
    }

    /** This config for trainer number {@code i}: its own seed, derived from this one. */
    public TrainerSettings forTrainer(int i) {
        return withSeed(seed * 1_000_003L + i);
    }

    public long computeNanos() {
        return computeNanos;
    }

    public int dimension() {
        return dimension;
    }

    public int rowsPerShard() {
        return rowsPerShard;
    }

    public int fetchRows() {
        return fetchRows;
    }

    public long seed() {
        return seed;
    }

    public Duration deadline() {
        return deadline;
    }

    /** A fresh size generator for this config's seed. */
    public PushSizes pushSizes() {
        return new PushSizes(seed, pushMeanBytes, pushP99Bytes);
    }

    @Override
    public String toString() {
        return "TrainerSettings{computeNanos=" + computeNanos + ", dimension=" + dimension + ", rowsPerShard=" + rowsPerShard
                + ", fetchRows=" + fetchRows + ", seed=" + seed + ", deadline=" + deadline + ", pushMeanBytes=" + pushMeanBytes
                + ", pushP99Bytes=" + pushP99Bytes + "}";
    }
}
