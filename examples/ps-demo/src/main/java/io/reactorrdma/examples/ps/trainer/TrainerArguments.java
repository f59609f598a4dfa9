package io.reactorrdma.examples.ps.trainer;

import io.reactorrdma.examples.ps.ranker.ShardTargets;
import io.reactorrdma.examples.ps.shard.Durations;
import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Duration;

/** {@link TrainerMain}'s command line as picocli reads it. */
@Command(name = "trainer", sortOptions = false,
        description = {"Trainers against running shards; --dim and --rows must match the shards'."})
final class TrainerArguments {

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "this text")
    boolean help;

    @Mixin
    ShardTargets shards = new ShardTargets();

    @Option(names = "--duration", paramLabel = "TIME", converter = Durations.class, description = "run time (30s, 500ms, 2m), default 30s")
    Duration duration = TrainerMain.DEFAULT_DURATION;

    @Option(names = "--trainers", paramLabel = "T", description = "trainers, default " + TrainerMain.DEFAULT_TRAINERS)
    int trainers = TrainerMain.DEFAULT_TRAINERS;

    @Option(names = "--compute-us", paramLabel = "US", description = "compute time per step, microseconds, default "
            + TrainerSettings.DEFAULT_COMPUTE_NANOS / 1000)
    long computeMicros = TrainerSettings.DEFAULT_COMPUTE_NANOS / 1000;

    @Option(names = "--fetch-rows", paramLabel = "N", description = "rows fetched per shard and step, default "
            + TrainerSettings.DEFAULT_FETCH_ROWS)
    int fetchRows = TrainerSettings.DEFAULT_FETCH_ROWS;

    @Option(names = "--dim", paramLabel = "D", description = "the embedding dimension, default " + TrainerSettings.DEFAULT_DIMENSION)
    int dimension = TrainerSettings.DEFAULT_DIMENSION;

    @Option(names = "--rows", paramLabel = "R", description = "rows per shard, default " + TrainerSettings.DEFAULT_ROWS_PER_SHARD)
    int rows = TrainerSettings.DEFAULT_ROWS_PER_SHARD;

    @Option(names = "--seed", paramLabel = "S", description = "the trainers' seed, default " + TrainerSettings.DEFAULT_SEED)
    long seed = TrainerSettings.DEFAULT_SEED;

    /** The trainers' configuration. @throws UsageException naming the value out of range */
    TrainerSettings config() {
        UsageException.atLeast("--trainers", trainers, 1);
        UsageException.atLeast("--fetch-rows", fetchRows, 1);
        UsageException.atLeast("--dim", dimension, 1);
        UsageException.atLeast("--rows", rows, 1);
        UsageException.atLeast("--compute-us", computeMicros, 0);
        return TrainerSettings.defaults().withDimension(dimension).withRowsPerShard(rows).withFetchRows(fetchRows)
                .withComputeNanos(computeMicros * 1000).withSeed(seed);
    }
}
