package io.reactorrdma.examples.ps.demo;

import io.micrometer.core.instrument.MeterRegistry;
import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.examples.ps.demo.process.ShardAddresses;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.reactorrdma.rsocket.recovery.ShardClient;
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

/**
 * The demo JVM's clients of every shard over one transport: a recovery-layer {@link ShardClient}
 * per shard over all its replicas (balancing, ejection, reconnection, retries, hedging), its
 * meters in the run's registry. Replica {@code r} of shard {@code s} is the target
 * {@link #replicaKey(int, int) shard<s>-replica<r>}.
 */
final class ShardConnections implements AutoCloseable {

    /** How long every replica of every shard may take to connect: 60 s (JVMs still warming up on a loaded host). */
    static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final Map<Integer, ShardClient> clients = new LinkedHashMap<>();

    private ShardConnections() {
    }

    /** The target key of one replica: {@code shard<s>-replica<r>}. */
    static String replicaKey(int shard, int replica) {
        return "shard" + shard + "-replica" + replica;
    }

    /**
     * Connects to every replica over {@code transport} ({@code rdma} on {@code resources}, or {@code tcp})
     * and returns once all are live.
     */
    static ShardConnections connect(ShardAddresses shards, String transport, RdmaResources resources, MeterRegistry registry) {
        ShardConnections c = new ShardConnections();
        try {
            for (int s = 0; s < shards.shards(); s++) {
                List<LoadbalanceTarget> targets = new ArrayList<>();
                for (int r = 0; r < shards.replicas(); r++) {
                    targets.add(LoadbalanceTarget.from(replicaKey(s, r), transport(shards, s, r, transport, resources)));
                }
                c.clients.put(s, ShardClient.builder()
                        .targets(Flux.just(targets))
                        .connector(k -> k.payloadDecoder(PayloadDecoder.ZERO_COPY))
                        .meterRegistry(registry)
                        .build());
            }
            c.awaitLive(shards.replicas());
            return c;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private static ClientTransport transport(ShardAddresses shards, int s, int r, String transport, RdmaResources resources) {
        if (transport.equals("rdma")) {
            InetSocketAddress a = shards.rdma(s, r);
            return RdmaClientTransport.create(RdmaClient.create().host(a.getHostString()).port(a.getPort()).runOn(resources), resources);
        }
        InetSocketAddress a = shards.tcp(s, r);
        return TcpClientTransport.create(a.getHostString(), a.getPort());
    }

    private void awaitLive(int replicas) {
        long deadline = System.nanoTime() + DEFAULT_CONNECT_TIMEOUT.toNanos();
        for (Map.Entry<Integer, ShardClient> e : clients.entrySet()) {
            while (e.getValue().liveReplicas().size() < replicas) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("shard " + e.getKey() + " has only " + e.getValue().liveReplicas() + " of its "
                            + replicas + " replicas connected after " + DEFAULT_CONNECT_TIMEOUT.toSeconds()
                            + " s: is every shard process running (see its log)?");
                }
                sleep(10);
            }
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
        clients.values().forEach(ShardClient::dispose);
        for (ShardClient c : clients.values()) {
            c.onClose().onErrorResume(t -> Mono.empty()).block(CLOSE_TIMEOUT);
        }
    }
}
