package io.reactorrdma.perf.fanout;

import io.reactorrdma.perf.cli.PerfException;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.loadbalance.LoadbalanceRSocketClient;
import io.rsocket.loadbalance.LoadbalanceTarget;
import io.rsocket.transport.ClientTransport;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.IntFunction;

/**
 * {@link ShardFanOut} on RSocket-Java's own parts: one {@link LoadbalanceRSocketClient} per shard
 * whose targets are the shard's replicas (round robin, RSocket's default strategy), connections
 * made by an {@link RSocketConnector} with {@code PayloadDecoder.ZERO_COPY}. No timeouts, retries
 * or hedging: the baseline the recovery layer's shard client is compared against.
 */
final class LoadbalancedFanOut implements ShardFanOut {

    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final List<LoadbalanceRSocketClient> clients = new ArrayList<>();
    /** Every requester the load balancers connected, so that close can wait for each. */
    private final Queue<RSocket> connected = new ConcurrentLinkedQueue<>();

    /** {@code replicas.get(shard)}: the transports to that shard's replicas. */
    LoadbalancedFanOut(List<List<ClientTransport>> replicas) {
        RSocketConnector connector = RSocketConnector.create().payloadDecoder(PayloadDecoder.ZERO_COPY)
                .interceptors(r -> r.forRequester((RSocket s) -> {
                    connected.add(s);
                    return s;
                }));
        for (int shard = 0; shard < replicas.size(); shard++) {
            List<LoadbalanceTarget> targets = new ArrayList<>();
            for (int r = 0; r < replicas.get(shard).size(); r++) {
                targets.add(LoadbalanceTarget.from("shard" + shard + "-replica" + r, replicas.get(shard).get(r)));
            }
            clients.add(LoadbalanceRSocketClient.builder(Mono.just(targets)).connector(connector).roundRobinLoadbalanceStrategy().build());
        }
    }

    @Override
    public Mono<List<Payload>> fanOut(IntFunction<Payload> subRequest) {
        return Flux.range(0, clients.size())
                .flatMapSequential(shard -> clients.get(shard).requestResponse(Mono.fromSupplier(() -> subRequest.apply(shard))),
                        clients.size())
                .collectList()
                .doOnDiscard(Payload.class, Payload::release);
    }

    @Override
    public int shards() {
        return clients.size();
    }

    @Override
    public void close() {
        clients.forEach(LoadbalanceRSocketClient::dispose);
        connected.forEach(RSocket::dispose);
        for (RSocket s : connected) {
            try {
                s.onClose().onErrorResume(e -> Mono.empty()).block(CLOSE_TIMEOUT);
            } catch (RuntimeException e) {
                throw new PerfException("a fan-out connection did not close within " + CLOSE_TIMEOUT.toSeconds() + " s: " + e, e);
            }
        }
    }
}
