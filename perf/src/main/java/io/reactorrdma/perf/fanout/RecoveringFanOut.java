package io.reactorrdma.perf.fanout;

import io.micrometer.core.instrument.MeterRegistry;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.rsocket.shard.CallOptions;
import io.reactorrdma.rsocket.fanout.FanOut;
import io.reactorrdma.rsocket.shard.ShardClient;
import io.rsocket.Payload;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.loadbalance.LoadbalanceTarget;
import io.rsocket.transport.ClientTransport;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * {@link ShardFanOut} the library's way: one recovery-layer {@link ShardClient} per shard over its
 * replicas (weighted balancing, retries, hedging after the shard's p95 or {@code --hedge-quantile}, at most 5 % hedges) and
 * {@link FanOut#requestResponse} to send each fan-out under one deadline. Every sub-request is
 * idempotent with a generous per-attempt {@link #ATTEMPT_TIMEOUT}, so a slow answer (a 1 MiB echo on
 * a loaded host) is hedged, not retried away. The shard clients' meters go to the registry given,
 * from which {@link #counts()} reads hedges and retries.
 */
final class RecoveringFanOut implements ShardFanOut {

    /** Per-attempt timeout of a sub-request: far above any answer the scenario expects. */
    static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(10);
    /** The whole fan-out's deadline: room for the attempts a shard client may make. */
    static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final Map<Integer, ShardClient> shards = new LinkedHashMap<>();
    private final MeterRegistry registry;
    private final CallOptions options;
    private final AtomicLong subRequests = new AtomicLong();

    /**
     * {@code replicas.get(shard)}: the transports to that shard's replicas; {@code hedging}: whether
     * slow sub-requests are hedged, after {@code hedgeQuantile} of the shard's latency. Returns once every replica of
     * every shard is connected.
     */
    RecoveringFanOut(List<List<ClientTransport>> replicas, boolean hedging, double hedgeQuantile, MeterRegistry registry) {
        this.registry = registry;
        this.options = CallOptions.idempotent().timeout(ATTEMPT_TIMEOUT).hedging(hedging);
        try {
            for (int shard = 0; shard < replicas.size(); shard++) {
                List<LoadbalanceTarget> targets = new ArrayList<>();
                for (int r = 0; r < replicas.get(shard).size(); r++) {
                    targets.add(LoadbalanceTarget.from("shard" + shard + "-replica" + r, replicas.get(shard).get(r)));
                }
                shards.put(shard, ShardClient.builder()
                        .targets(Flux.just(targets))
                        .connector(c -> c.payloadDecoder(PayloadDecoder.ZERO_COPY))
                        .hedging(hedging)
                        .hedgePolicy(hedgeQuantile, ShardClient.DEFAULT_HEDGE_FRACTION)
                        .meterRegistry(registry)
                        .build());
            }
            awaitAllLive(replicas);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Waits until every shard client has all its replicas live, so that connecting is done before the warm-up. */
    private void awaitAllLive(List<List<ClientTransport>> replicas) {
        long deadline = System.nanoTime() + CONNECT_TIMEOUT.toNanos();
        for (Map.Entry<Integer, ShardClient> e : shards.entrySet()) {
            int want = replicas.get(e.getKey()).size();
            while (e.getValue().liveReplicas().size() < want) {
                if (System.nanoTime() - deadline > 0) {
                    throw new PerfException("shard " + e.getKey() + " has only " + e.getValue().liveReplicas() + " of its " + want
                            + " replicas connected after " + CONNECT_TIMEOUT.toSeconds() + " s: did a server JVM fail to start?");
                }
                try {
                    TimeUnit.MILLISECONDS.sleep(10);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new PerfException("interrupted while connecting the shard clients", ie);
                }
            }
        }
    }

    @Override
    public Mono<List<Payload>> fanOut(IntFunction<Payload> subRequest) {
        return FanOut.requestResponse(shards, shard -> {
                    subRequests.incrementAndGet();
                    return subRequest.apply(shard);
                }, DEADLINE)
                .map(answers -> (List<Payload>) new ArrayList<>(answers.values()))
                .contextWrite(options);
    }

    @Override
    public int shards() {
        return shards.size();
    }

    /** Sub-requests built so far, and the shard clients' hedges, hedges won and retries so far. */
    @Override
    public RecoveryCounts counts() {
        return new RecoveryCounts(subRequests.get(), count("rdma.recovery.hedges"), count("rdma.recovery.hedges.won"),
                count("rdma.recovery.retries"));
    }

    /** Requests sent so far to each replica of {@code shard} (attempts and hedges), by replica key. */
    Map<String, Long> requestsSent(int shard) {
        return shards.get(shard).requestsSent();
    }

    private long count(String name) {
        var c = registry.find(name).counter();
        return c == null ? 0 : (long) c.count();
    }

    @Override
    public void close() {
        shards.values().forEach(ShardClient::dispose);
        for (Map.Entry<Integer, ShardClient> e : shards.entrySet()) {
            try {
                e.getValue().onClose().onErrorResume(t -> Mono.empty()).block(CLOSE_TIMEOUT);
            } catch (RuntimeException t) {
                throw new PerfException("shard " + e.getKey() + "'s client did not close within "
                        + CLOSE_TIMEOUT.toSeconds() + " s: " + t, t);
            }
        }
    }
}
