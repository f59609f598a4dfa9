package io.reactorrdma.perf.fanout;

import io.rsocket.Payload;
import io.rsocket.RSocket;
import reactor.core.publisher.Mono;

import java.time.Duration;

/**
 * One shard replica's RSocket: request-response answers with the request itself (with
 * {@code PayloadDecoder.ZERO_COPY} its data is the received frame's bytes, which RSocket sends
 * back and then releases). A slow replica ({@code --slow-replica MS}) holds each answer for that
 * long first; a request cancelled meanwhile is released when the delay drops it.
 */
final class FanoutResponder implements RSocket {

    private final Duration delay;

    /** {@code delay} zero: answers at once. */
    FanoutResponder(Duration delay) {
        this.delay = delay;
    }

    @Override
    public Mono<Payload> requestResponse(Payload request) {
        if (delay.isZero()) {
            return Mono.just(request);
        }
        return Mono.just(request).delayElement(delay).doOnDiscard(Payload.class, Payload::release);
    }
}
