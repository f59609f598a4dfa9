package io.reactorrdma.examples.ps.shard;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.reactorrdma.examples.ps.wire.FetchReply;
import io.reactorrdma.examples.ps.wire.PushAck;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.util.ByteBufPayload;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A shard as an RSocket: request-response is a fetch ({@code FetchRequest} in, {@code FetchReply}
 * out), fire-and-forget a push ({@code PushBatch}, no answer), request-channel a push stream (one
 * {@code PushAck} per batch, in order). A bad request — malformed bytes, a key of another shard, a
 * wrong dimension — is answered with an error whose message says what is wrong (RSocket's
 * APPLICATION_ERROR); on a push stream that error ends the stream. A bad fire-and-forget has no one
 * to answer: it is counted ({@link #rejectedPushes()}) and dropped.
 *
 * <p>A fetch of one run of consecutive rows is answered in {@link FetchReply}'s split form (header
 * as metadata, one slice of the table as data), which the RDMA engine sends without a copy; any
 * other fetch in the one-part form built by {@link EmbeddingShard#fetch}, which the engine copies
 * once on send. Headers come from the allocator given (registered on RDMA). Every request payload
 * is released once, here.
 */
public final class ShardResponder implements RSocket {

    private final EmbeddingShard shard;
    private final ByteBufAllocator alloc;
    private final Duration slow;
    private final AtomicLong rejectedPushes = new AtomicLong();

    /** Answers from {@code shard}, building replies with {@code alloc}. */
    public ShardResponder(EmbeddingShard shard, ByteBufAllocator alloc) {
        this.shard = Objects.requireNonNull(shard, "shard");
        this.alloc = Objects.requireNonNull(alloc, "alloc");
        this.slow = Duration.ofMillis(shard.config().slowMillis());
    }

    @Override
    public Mono<Payload> requestResponse(Payload request) {
        // using: the request is released exactly once, also when the caller cancels during the delay
        return Mono.using(() -> request, r -> {
            Mono<Payload> reply = Mono.fromCallable(() -> fetch(r.data()));
            return slow.isZero() ? reply : Mono.delay(slow).then(reply);
        }, Payload::release);
    }

    /** The split form (header as metadata, one slice as data: sent without a copy) for one run of rows, else the one-part form. */
    private Payload fetch(ByteBuf request) {
        ByteBuf rows = shard.contiguousRows(request);
        if (rows == null) {
            return ByteBufPayload.create(shard.fetch(request, alloc));
        }
        try {
            int count = rows.readableBytes() / (Float.BYTES * shard.config().dimension());
            return ByteBufPayload.create(rows, FetchReply.header(alloc, count, shard.config().dimension()));
        } catch (RuntimeException e) {
            rows.release();
            throw e;
        }
    }

    @Override
    public Mono<Void> fireAndForget(Payload push) {
        try {
            shard.apply(push.data());
        } catch (RuntimeException e) { // malformed, another shard's keys, or the table already released
            rejectedPushes.incrementAndGet();
        } finally {
            push.release();
        }
        return Mono.empty();
    }

    @Override
    public Flux<Payload> requestChannel(Publisher<Payload> pushes) {
        return Flux.from(pushes).map(push -> {
            try {
                return ByteBufPayload.create(PushAck.encode(alloc, shard.apply(push.data())));
            } finally {
                push.release();
            }
        });
    }

    /** Fire-and-forget pushes dropped because they were malformed or held another shard's keys. */
    public long rejectedPushes() {
        return rejectedPushes.get();
    }

    /** The table this responder serves. */
    public EmbeddingShard shard() {
        return shard;
    }
}
