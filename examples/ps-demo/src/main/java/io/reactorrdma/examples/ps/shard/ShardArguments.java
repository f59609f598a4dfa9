package io.reactorrdma.examples.ps.shard;

import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@link ShardMain}'s command line as picocli reads it. */
@Command(name = "shard", sortOptions = false,
        description = "One shard replica: serves until stdin closes or SIGTERM; "
                + "prints SHARD-READY index=<i> rdma=<port> tcp=<port> pid=<pid>")
final class ShardArguments {

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "this text")
    boolean help;

    @Option(names = "--index", required = true, paramLabel = "I", description = "this shard's index, 0..N-1")
    int index;

    @Option(names = "--count", required = true, paramLabel = "N", description = "the number of shards")
    int count;

    @Option(names = "--rows", paramLabel = "R", description = "rows of this shard, default " + ShardConfig.DEFAULT_ROWS)
    int rows = ShardConfig.DEFAULT_ROWS;

    @Option(names = "--dim", paramLabel = "D", description = "the embedding dimension, default " + ShardConfig.DEFAULT_DIMENSION)
    int dimension = ShardConfig.DEFAULT_DIMENSION;

    @Option(names = "--seed", paramLabel = "S", description = "the table's seed, default " + ShardConfig.DEFAULT_SEED)
    long seed = ShardConfig.DEFAULT_SEED;

    @Option(names = "--lr", paramLabel = "X", description = "the learning rate of pushes, default " + ShardConfig.DEFAULT_LEARNING_RATE)
    float learningRate = ShardConfig.DEFAULT_LEARNING_RATE;

    @Option(names = "--slow-ms", paramLabel = "MS", description = "hold each answer MS milliseconds, default none")
    int slowMillis = ShardConfig.DEFAULT_SLOW_MILLIS;

    @Option(names = "--host", paramLabel = "H", description = "the address to bind, default " + ShardMain.DEFAULT_HOST)
    String host = ShardMain.DEFAULT_HOST;

    @Option(names = "--rdma-port", paramLabel = "P", description = "the RDMA port, default any free one")
    int rdmaPort = ShardMain.DEFAULT_PORT;

    @Option(names = "--tcp-port", paramLabel = "P", description = "the TCP port, default any free one")
    int tcpPort = ShardMain.DEFAULT_PORT;

    @Mixin
    MainOptions rdma = new MainOptions();

    /**
     * The shard's configuration.
     *
     * @throws IllegalArgumentException naming the value that is out of range
     */
    ShardConfig config() {
        UsageException.atLeast("--index", index, 0);
        UsageException.atLeast("--count", count, 1);
        UsageException.atLeast("--rows", rows, 1);
        UsageException.atLeast("--dim", dimension, 1);
        UsageException.atLeast("--slow-ms", slowMillis, 0);
        UsageException.atLeast("--rdma-port", rdmaPort, 0);
        UsageException.atLeast("--tcp-port", tcpPort, 0);
        return new ShardConfig(index, count, rows, dimension, learningRate, seed, slowMillis);
    }
}
