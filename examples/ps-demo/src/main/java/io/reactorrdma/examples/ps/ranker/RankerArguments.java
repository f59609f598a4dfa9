package io.reactorrdma.examples.ps.ranker;

import io.reactorrdma.examples.ps.shard.Durations;
import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Duration;

/** {@link RankerMain}'s command line as picocli reads it. */
@Command(name = "ranker", sortOptions = false,
        description = {"User requests against running shards; --dim and --rows must match the shards'."})
final class RankerArguments {

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "this text")
    boolean help;

    @Mixin
    ShardTargets shards = new ShardTargets();

    @Option(names = "--duration", paramLabel = "TIME", converter = Durations.class, description = "run time (30s, 500ms, 2m), default 30s")
    Duration duration = RankerMain.DEFAULT_DURATION;

    @Option(names = "--outstanding", paramLabel = "N", description = "user requests in flight, default " + RankerMain.DEFAULT_OUTSTANDING)
    int outstanding = RankerMain.DEFAULT_OUTSTANDING;

    @Option(names = "--models", paramLabel = "K", description = "models per request, default " + RankerConfig.DEFAULT_MODELS)
    int models = RankerConfig.DEFAULT_MODELS;

    @Option(names = "--dim", paramLabel = "D", description = "the embedding dimension, default " + RankerConfig.DEFAULT_DIMENSION)
    int dimension = RankerConfig.DEFAULT_DIMENSION;

    @Option(names = "--rows", paramLabel = "R", description = "rows per shard, default " + RankerConfig.DEFAULT_ROWS_PER_SHARD)
    int rows = RankerConfig.DEFAULT_ROWS_PER_SHARD;

    @Option(names = "--seed", paramLabel = "S", description = "the requests' seed, default " + RankerConfig.DEFAULT_SEED)
    long seed = RankerConfig.DEFAULT_SEED;

    /** The ranker's configuration. @throws UsageException naming the value out of range */
    RankerConfig config() {
        UsageException.atLeast("--outstanding", outstanding, 1);
        UsageException.atLeast("--models", models, 1);
        UsageException.atLeast("--dim", dimension, 1);
        UsageException.atLeast("--rows", rows, 1);
        return RankerConfig.defaults().withModels(models).withDimension(dimension).withRowsPerShard(rows).withSeed(seed);
    }
}
