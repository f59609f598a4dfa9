package io.reactorrdma.examples.ps.ranker;

import io.reactorrdma.examples.ps.shard.ShardConfig;
import io.reactorrdma.examples.ps.wire.FetchReply;

import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * What a {@link Ranker} asks of the shards: {@code models} models per user request, each fetching a
 * block of consecutive rows from every shard; the block's size is drawn per model so that one
 * shard's fetch reply is one of {@code replySizes} (bytes) with the matching {@code replyPercents},
 * KB to MB like the paper's inference workload (default 4 KiB 40 %, 16 KiB 25 %, 64 KiB 20 %, 256 KiB
 * 10 %, 1 MiB 5 %, as perf's fan-out scenario). {@code dimension} and {@code rowsPerShard} must match
 * the shards'. Every draw comes from {@code seed}, the user id and the model number, so two runs with
 * the same seed fetch the same rows. Immutable; the {@code with*} methods return copies.
 */
public final class RankerConfig {

    /** Models per user request: 4. */
    public static final int DEFAULT_MODELS = 4;
    /** Floats per row: as the shards' default. */
    public static final int DEFAULT_DIMENSION = ShardConfig.DEFAULT_DIMENSION;
    /** Rows each shard holds: as the shards' default. */
    public static final int DEFAULT_ROWS_PER_SHARD = ShardConfig.DEFAULT_ROWS;
    /** The seed of the draws: 42. */
    public static final long DEFAULT_SEED = 42L;
    /** The whole fan-out's deadline per model: 10 s (generous: a 1 MiB fetch on a loaded 2-core host). */
    public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(10);
    /** The reply sizes a model's fetch from one shard is drawn from, bytes. */
    public static final int[] DEFAULT_REPLY_SIZES = {4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20};
    /** Each reply size's share in percent. */
    public static final int[] DEFAULT_REPLY_PERCENTS = {40, 25, 20, 10, 5};

    private final int models;
    private final int dimension;
    private final int rowsPerShard;
    private final long seed;
    private final Duration deadline;
    private final int[] replySizes;
    private final int[] replyPercents;

    private RankerConfig(int models, int dimension, int rowsPerShard, long seed, Duration deadline, int[] replySizes, int[] replyPercents) {
        if (models < 1 || dimension < 1 || rowsPerShard < 1) {
            throw new IllegalArgumentException("models, dimension and rowsPerShard must be at least 1, got " + models + ", "
                    + dimension + ", " + rowsPerShard);
        }
        if (deadline.isNegative() || deadline.isZero()) {
            throw new IllegalArgumentException("deadline must be positive, got " + deadline);
        }
        if (replySizes.length == 0 || replySizes.length != replyPercents.length || Arrays.stream(replyPercents).sum() != 100
                || Arrays.stream(replyPercents).anyMatch(p -> p < 0)
                || Arrays.stream(replySizes).anyMatch(s -> s < FetchReply.HEADER_BYTES)) {
            throw new IllegalArgumentException("reply sizes " + Arrays.toString(replySizes) + " with percents "
                    + Arrays.toString(replyPercents)
                    + " are not a mix: give as many sizes (each at least " + FetchReply.HEADER_BYTES
                    + " bytes) as percents, adding up to 100");
        }
        this.models = models;
        this.dimension = dimension;
        this.rowsPerShard = rowsPerShard;
        this.seed = seed;
        this.deadline = deadline;
        this.replySizes = replySizes.clone();
        this.replyPercents = replyPercents.clone();
    }

    /** Every setting at its default. */
    public static RankerConfig defaults() {
        return new RankerConfig(DEFAULT_MODELS, DEFAULT_DIMENSION, DEFAULT_ROWS_PER_SHARD, DEFAULT_SEED, DEFAULT_DEADLINE,
                DEFAULT_REPLY_SIZES, DEFAULT_REPLY_PERCENTS);
    }

    /** A copy evaluating {@code models} models per user request. */
    public RankerConfig withModels(int models) {
        return new RankerConfig(models, dimension, rowsPerShard, seed, deadline, replySizes, replyPercents);
    }

    /** A copy for rows of {@code dimension} floats. */
    public RankerConfig withDimension(int dimension) {
        return new RankerConfig(models, dimension, rowsPerShard, seed, deadline, replySizes, replyPercents);
    }

    /** A copy for shards of {@code rowsPerShard} rows. */
    public RankerConfig withRowsPerShard(int rowsPerShard) {
        return new RankerConfig(models, dimension, rowsPerShard, seed, deadline, replySizes, replyPercents);
    }

    /** A copy drawing from {@code seed}. */
    public RankerConfig withSeed(long seed) {
        return new RankerConfig(models, dimension, rowsPerShard, seed, deadline, replySizes, replyPercents);
    }

    /** A copy whose model fan-outs must answer within {@code deadline}. */
    public RankerConfig withDeadline(Duration deadline) {
        return new RankerConfig(models, dimension, rowsPerShard, seed, deadline, replySizes, replyPercents);
    }

    /** The reply-size mix: {@code sizes[i]} bytes with {@code percents[i]} % probability. */
    public RankerConfig withReplySizes(int[] sizes, int[] percents) {
        return new RankerConfig(models, dimension, rowsPerShard, seed, deadline, sizes, percents);
    }

    public int models() {
        return models;
    }

    public int dimension() {
        return dimension;
    }

    public int rowsPerShard() {
        return rowsPerShard;
    }

    public long seed() {
        return seed;
    }

    public Duration deadline() {
        return deadline;
    }

    /** The mean reply size of one shard's fetch, bytes (before rounding to whole rows). */
    public double meanReplyBytes() {
        double sum = 0;
        for (int i = 0; i < replySizes.length; i++) {
            sum += replySizes[i] * (replyPercents[i] / 100.0);
        }
        return sum;
    }

    /** Rows per shard that model {@code model} of user {@code userId} fetches. */
    public int rowsOf(long userId, int model) {
        int r = random(userId, model).nextInt(100);
        int size = replySizes[replySizes.length - 1];
        for (int i = 0; i < replySizes.length; i++) {
            r -= replyPercents[i];
            if (r < 0) {
                size = replySizes[i];
                break;
            }
        }
        return Math.max(1, Math.min(rowsPerShard, (size - FetchReply.HEADER_BYTES) / (Float.BYTES * dimension)));
    }

    /** The first row of the block that model {@code model} of user {@code userId} fetches from {@code shard}. */
    public int firstRowOf(long userId, int model, int shard) {
        int rows = rowsOf(userId, model);
        SplittableRandom r = random(userId, model);
        r.nextInt(100); // the size draw
        for (int s = 0; s < shard; s++) {
            r.nextInt(rowsPerShard - rows + 1);
        }
        return r.nextInt(rowsPerShard - rows + 1);
    }

    private SplittableRandom random(long userId, int model) {
        return new SplittableRandom(seed * 0x9E3779B97F4A7C15L + userId * 31 + model);
    }

    @Override
    public String toString() {
        return "RankerConfig{models=" + models + ", dimension=" + dimension + ", rowsPerShard=" + rowsPerShard + ", seed=" + seed
                + ", deadline=" + deadline + ", replySizes=" + Arrays.toString(replySizes) + ", replyPercents="
                + Arrays.toString(replyPercents) + "}";
    }
}
