package io.reactorrdma.examples.ps.ranker;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.rsocket.shard.ShardClient;
import io.reactorrdma.tools.cli.UsageException;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A client process's side of the shards, as its command line describes it: {@code --shards
 * host:port,...} grouped into shards of {@code --replicas} replicas, over {@code --transport rdma}
 * (on resources from {@code --provider}, {@code --shm-dir}, {@code --idle}, {@code --send-window-bytes})
 * or {@code tcp}: one replicated {@link ShardClient} per shard, connected to every replica, the
 * allocator requests should be written with, and the meters of the engine and the shard clients.
 * {@link #close()} disposes the clients and then the resources.
 */
public final class ShardConnections implements AutoCloseable {

    /** Replicas per shard when {@code --replicas} is not given: 1. */
    public static final int DEFAULT_REPLICAS = 1;
    /** Transport when {@code --transport} is not given: rdma. */
    public static final String DEFAULT_TRANSPORT = "rdma";
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final RdmaResources resources;
    private final Map<Integer, ShardClient> clients;

    private ShardConnections(ShardTargets o, String name) {
        String transport = o.transport;
        if (o.replicas < 1) {
            throw new UsageException("--replicas must be at least 1, got " + o.replicas);
        }
        int replicas = o.replicas;
        List<List<InetSocketAddress>> addresses;
        try {
            addresses = ShardClients.parse(o.shards, replicas);
        } catch (UsageException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new UsageException("--shards: " + e.getMessage());
        }
        this.resources = transport.equals("rdma") ? o.rdma.rdmaResources(name, meters) : null;
        try {
            this.clients = ShardClients.replicated(
                    resources == null ? ShardClients.tcp(addresses) : ShardClients.rdma(addresses, resources),
                    ShardClients.DEFAULT_ATTEMPT_TIMEOUT, meters);
            ShardClients.awaitConnected(clients, replicas, ShardClients.DEFAULT_CONNECT_TIMEOUT);
        } catch (RuntimeException e) {
            if (resources != null) {
                resources.dispose();
            }
            throw e;
        }
    }

    /** Connects as the options say; a bad option is a {@link UsageException}. */
    public static ShardConnections open(ShardTargets options, String name) {
        return new ShardConnections(options, name);
    }

    /** Shard index to its client. */
    public Map<Integer, ShardClient> clients() {
        return clients;
    }

    /** Where requests should be written: the registered allocator on RDMA, the default one on TCP. */
    public ByteBufAllocator allocator() {
        return resources == null ? ByteBufAllocator.DEFAULT : resources.alloc();
    }

    /** The engine's {@code rdma.*} and the shard clients' {@code rdma.recovery.*} meters. */
    public MeterRegistry meters() {
        return meters;
    }

    /** A counter's value, 0 when it does not exist. */
    public long count(String name) {
        return (long) meters.find(name).counters().stream().mapToDouble(c -> c.count()).sum()
                + (long) meters.find(name).functionCounters().stream().mapToDouble(c -> c.count()).sum();
    }

    @Override
    public void close() {
        ShardClients.dispose(clients, CLOSE_TIMEOUT);
        if (resources != null) {
            resources.dispose();
        }
    }
}
