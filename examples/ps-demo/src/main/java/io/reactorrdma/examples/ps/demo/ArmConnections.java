package io.reactorrdma.examples.ps.demo;

import io.micrometer.core.instrument.MeterRegistry;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.examples.ps.demo.process.ShardAddresses;
import io.reactorrdma.examples.ps.ranker.ShardClients;
import io.reactorrdma.rsocket.shard.ShardClient;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The demo JVM's clients of every shard over one transport: the applications'
 * {@link ShardClients#replicated} (a recovery-layer {@link ShardClient} per shard over all its
 * replicas: balancing, ejection, reconnection, retries, hedging), its meters in the run's registry.
 * Replica {@code r} of shard {@code s} is the target {@link #replicaKey(int, int) shard<s>-replica<r>}.
 */
final class ArmConnections implements AutoCloseable {

    /** How long every replica of every shard may take to connect: 60 s (JVMs still warming up on a loaded host). */
    static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final Map<Integer, ShardClient> clients;

    private ArmConnections(Map<Integer, ShardClient> clients) {
        this.clients = clients;
    }

    /** The target key {@link ShardClients#replicated} gives replica {@code replica} of shard {@code shard}. */
    static String replicaKey(int shard, int replica) {
        return "shard" + shard + "-replica" + replica;
    }

    /**
     * Connects to every replica over {@code transport} ({@code rdma} on {@code resources}, or {@code tcp})
     * and returns once all are live.
     */
    static ArmConnections connect(ShardAddresses shards, String transport, RdmaResources resources, MeterRegistry registry) {
        List<List<InetSocketAddress>> addresses = new ArrayList<>();
        for (int s = 0; s < shards.shards(); s++) {
            List<InetSocketAddress> replicas = new ArrayList<>();
            for (int r = 0; r < shards.replicas(); r++) {
                replicas.add(transport.equals("rdma") ? shards.rdma(s, r) : shards.tcp(s, r));
            }
            addresses.add(replicas);
        }
        ArmConnections c = new ArmConnections(ShardClients.replicated(transport.equals("rdma")
                ? ShardClients.rdma(addresses, resources) : ShardClients.tcp(addresses), ShardClients.DEFAULT_ATTEMPT_TIMEOUT, registry));
        try {
            ShardClients.awaitConnected(c.clients, shards.replicas(), DEFAULT_CONNECT_TIMEOUT);
            return c;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The shard clients, by shard index. */
    Map<Integer, ShardClient> clients() {
        return clients;
    }

    @Override
    public void close() {
        ShardClients.dispose(clients, CLOSE_TIMEOUT);
    }
}
