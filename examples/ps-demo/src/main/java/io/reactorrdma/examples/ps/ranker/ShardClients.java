package io.reactorrdma.examples.ps.ranker;

import io.micrometer.core.instrument.MeterRegistry;
import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.reactorrdma.rsocket.shard.ShardClient;
import io.rsocket.core.RSocketClient;
import io.rsocket.core.RSocketConnector;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.loadbalance.LoadbalanceTarget;
import io.rsocket.transport.ClientTransport;
import io.rsocket.transport.netty.client.TcpClientTransport;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The clients a ranker or trainer talks to its shards with. {@link #replicated} builds the recovery
 * layer's {@link ShardClient} per shard over that shard's replicas: weighted balancing, idempotent
 * calls by default (fetches are; the caller marks pushes otherwise), a per-attempt timeout,
 * retries within a budget, hedging on, meters to the registry given. {@link #plain} connects one
 * RSocket per shard with nothing in between, for comparison. Both decode replies zero-copy.
 */
public final class ShardClients {

    /** Per-attempt timeout of the replicated clients: 5 s (far above any healthy answer on a loaded host). */
    public static final Duration DEFAULT_ATTEMPT_TIMEOUT = Duration.ofSeconds(5);
    /** How long {@link #plain} and {@link #awaitConnected} wait for connections: 30 s. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(30);

    private ShardClients() {
    }

    /**
     * One {@link ShardClient} per shard: {@code replicas.get(s)} are shard {@code s}'s replicas. The
     * clients connect in the background; {@link #awaitConnected} waits for every replica.
     */
    public static Map<Integer, ShardClient> replicated(List<List<ClientTransport>> replicas, Duration attemptTimeout,
            MeterRegistry registry) {
        Map<Integer, ShardClient> shards = new LinkedHashMap<>();
        for (int s = 0; s < replicas.size(); s++) {
            List<LoadbalanceTarget> targets = new ArrayList<>();
            for (int r = 0; r < replicas.get(s).size(); r++) {
                targets.add(LoadbalanceTarget.from("shard" + s + "-replica" + r, replicas.get(s).get(r)));
            }
            if (targets.isEmpty()) {
                dispose(shards, Duration.ofSeconds(1));
                throw new IllegalArgumentException("shard " + s + " has no replica; give every shard at least one transport");
            }
            shards.put(s, ShardClient.builder()
                    .targets(Flux.just(targets))
                    .connector(c -> c.payloadDecoder(PayloadDecoder.ZERO_COPY))
                    .idempotentByDefault(true)
                    .timeout(attemptTimeout)
                    .hedging(true)
                    .meterRegistry(registry)
                    .build());
        }
        return shards;
    }

    /** Waits until every shard client has {@code replicasEach} live replicas; throws naming the first that has not. */
    public static void awaitConnected(Map<Integer, ShardClient> shards, int replicasEach, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Map.Entry<Integer, ShardClient> e : shards.entrySet()) {
            while (e.getValue().liveReplicas().size() < replicasEach) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("shard " + e.getKey() + " has " + e.getValue().liveReplicas() + " live of its "
                            + replicasEach + " replicas after " + timeout.toSeconds() + " s: is every shard process up and reachable?");
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while connecting to the shards", ie);
                }
            }
        }
    }

    /** One plain RSocket per shard, connected before this returns (or failing, closing the others). */
    public static Map<Integer, RSocketClient> plain(List<ClientTransport> shards) {
        Map<Integer, RSocketClient> clients = new LinkedHashMap<>();
        try {
            for (int s = 0; s < shards.size(); s++) {
                clients.put(s, RSocketClient.from(RSocketConnector.create().payloadDecoder(PayloadDecoder.ZERO_COPY)
                        .connect(shards.get(s)).block(DEFAULT_CONNECT_TIMEOUT)));
            }
            return clients;
        } catch (RuntimeException e) {
            dispose(clients, Duration.ofSeconds(5));
            throw new IllegalStateException("cannot connect to shard " + clients.size() + ": " + e.getMessage(), e);
        }
    }

    /** RDMA transports on {@code resources} to each shard's replicas. */
    public static List<List<ClientTransport>> rdma(List<List<InetSocketAddress>> replicas, RdmaResources resources) {
        return map(replicas,
                a -> RdmaClientTransport.create(RdmaClient.create().host(a.getHostString()).port(a.getPort()).runOn(resources)));
    }

    /** TCP transports to each shard's replicas. */
    public static List<List<ClientTransport>> tcp(List<List<InetSocketAddress>> replicas) {
        return map(replicas, a -> TcpClientTransport.create(a.getHostString(), a.getPort()));
    }

    /**
     * {@code host:port,host:port,...} as shards of {@code replicasEach} consecutive replicas each
     * (the first {@code replicasEach} addresses are shard 0's, and so on).
     */
    public static List<List<InetSocketAddress>> parse(String addresses, int replicasEach) {
        String[] parts = addresses.split(",");
        if (replicasEach < 1 || parts.length % replicasEach != 0) {
            throw new IllegalArgumentException(parts.length + " addresses do not split into shards of " + replicasEach
                    + " replicas; list every shard's replicas one after the other");
        }
        List<List<InetSocketAddress>> shards = new ArrayList<>();
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i].trim();
            int colon = p.lastIndexOf(':');
            int port;
            try {
                port = colon < 1 ? -1 : Integer.parseInt(p.substring(colon + 1));
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("'" + p + "' is not host:port; write e.g. 10.0.0.5:7000");
            }
            if (i % replicasEach == 0) {
                shards.add(new ArrayList<>());
            }
            shards.get(shards.size() - 1).add(InetSocketAddress.createUnresolved(p.substring(0, colon), port));
        }
        return shards;
    }

    /** Disposes every client and waits, boundedly, for each to close. */
    public static void dispose(Map<Integer, ? extends RSocketClient> clients, Duration timeout) {
        clients.values().forEach(RSocketClient::dispose);
        for (RSocketClient c : clients.values()) {
            try {
                c.onClose().onErrorResume(e -> Mono.empty()).block(timeout);
            } catch (RuntimeException e) {
                // closing is best effort: the process is ending or the test asserts the buffers
            }
        }
    }

    private static List<List<ClientTransport>> map(List<List<InetSocketAddress>> replicas, Function<InetSocketAddress, ClientTransport> f) {
        List<List<ClientTransport>> out = new ArrayList<>();
        for (List<InetSocketAddress> shard : replicas) {
            List<ClientTransport> t = new ArrayList<>();
            shard.forEach(a -> t.add(f.apply(a)));
            out.add(t);
        }
        return out;
    }
}
