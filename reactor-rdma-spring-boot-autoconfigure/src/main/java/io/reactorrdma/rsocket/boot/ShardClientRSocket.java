package io.reactorrdma.rsocket.boot;

import io.reactorrdma.rsocket.shard.ShardClient;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A {@link ShardClient} seen as an {@link RSocket}, which Spring's {@code RSocketRequester.wrap}
 * takes: each request goes to the shard client (which owns the payload from then on). Disposing this
 * leaves the shard client open: {@link RdmaShardClients} owns it.
 */
final class ShardClientRSocket implements RSocket {

    private final ShardClient client;

    ShardClientRSocket(ShardClient client) {
        this.client = client;
    }

    @Override
    public Mono<Void> fireAndForget(Payload payload) {
        return client.fireAndForget(Mono.just(payload));
    }

    @Override
    public Mono<Payload> requestResponse(Payload payload) {
        return client.requestResponse(Mono.just(payload));
    }

    @Override
    public Flux<Payload> requestStream(Payload payload) {
        return client.requestStream(Mono.just(payload));
    }

    @Override
    public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
        return client.requestChannel(payloads);
    }

    @Override
    public Mono<Void> metadataPush(Payload payload) {
        return client.metadataPush(Mono.just(payload));
    }

    /** Live while the shard client has a live replica (1.0) or none (0.0). */
    @Override
    public double availability() {
        return client.isDisposed() || client.liveReplicas().isEmpty() ? 0.0 : 1.0;
    }

    @Override
    public Mono<Void> onClose() {
        return client.onClose();
    }

    /** Does nothing: the shard client belongs to {@link RdmaShardClients}, disposed with the context. */
    @Override
    public void dispose() {
    }

    @Override
    public boolean isDisposed() {
        return client.isDisposed();
    }
}
