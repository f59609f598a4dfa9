package io.reactorrdma.examples.ps.ranker;

import io.reactorrdma.examples.ps.shard.MainOptions;
import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options of a client process that name the shards and how to reach them ({@code --shards}, {@code --replicas},
 * {@code --transport} and the RDMA options), a picocli mixin of the ranker's and the trainer's mains; read by
 * {@link ShardConnections#open}.
 */
public final class ShardTargets {

    @Option(names = "--shards", required = true, paramLabel = "host:port,...",
            description = "every shard's replicas in shard order (R consecutive addresses per shard)")
    String shards;

    @Option(names = "--replicas", paramLabel = "R", description = "replicas per shard, default " + ShardConnections.DEFAULT_REPLICAS)
    int replicas = ShardConnections.DEFAULT_REPLICAS;

    @Option(names = "--transport", paramLabel = "rdma|tcp", converter = Transport.class,
            description = "how to reach the shards, default " + ShardConnections.DEFAULT_TRANSPORT)
    String transport = ShardConnections.DEFAULT_TRANSPORT;

    @Mixin
    MainOptions rdma = new MainOptions();

    /** The transport's name, {@code rdma} or {@code tcp}. */
    public String transport() {
        return transport;
    }

    /** {@code --transport}: rdma or tcp. */
    static final class Transport implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            if (!value.equals("rdma") && !value.equals("tcp")) {
                throw new UsageException("--transport must be rdma or tcp, got '" + value + "'");
            }
            return value;
        }
    }
}
