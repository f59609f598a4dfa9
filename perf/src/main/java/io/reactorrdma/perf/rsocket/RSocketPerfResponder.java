package io.reactorrdma.perf.rsocket;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.perf.measure.EchoTemplates;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.util.ByteBufPayload;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The server's RSocket in rsocket-rr and rsocket-stream. Request-response answers with the
 * request itself ({@code Mono.just(payload)}: with {@code PayloadDecoder.ZERO_COPY} its data is
 * the received frame's bytes, which RSocket sends back and then releases). Request-stream
 * releases the request and answers with an endless stream of {@code --size} payloads, each a
 * retained duplicate of one template filled once (the bytes are produced once, the transports
 * move them), emitted only as the client's REQUEST_N allows; RSocket releases each after sending
 * it, the client ends the stream by cancelling it.
 */
final class RSocketPerfResponder implements RSocket {

    /** The pattern of the stream's payloads, seeded as {@link EchoTemplates#filled} with this connection number. */
    static final int STREAM_PATTERN = 0;

    private final ByteBuf template;

    /** Owns {@code template}, which holds the stream payloads' bytes; released by {@link #release()}. */
    RSocketPerfResponder(ByteBuf template) {
        this.template = template;
    }

    @Override
    public Mono<Payload> requestResponse(Payload request) {
        return Mono.just(request);
    }

    @Override
    public Flux<Payload> requestStream(Payload request) {
        request.release();
        return Flux.generate(sink -> sink.next(ByteBufPayload.create(template.retainedDuplicate())));
    }

    /** Drops the template (payloads still in flight hold their own references). */
    void release() {
        template.release();
    }
}
