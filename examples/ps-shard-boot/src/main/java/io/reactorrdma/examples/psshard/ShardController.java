package io.reactorrdma.examples.psshard;

import io.reactorrdma.examples.psshard.ShardMessages.FetchReply;
import io.reactorrdma.examples.psshard.ShardMessages.FetchRequest;
import io.reactorrdma.examples.psshard.ShardMessages.GradientBatch;
import io.reactorrdma.examples.psshard.ShardMessages.PushAck;
import io.reactorrdma.examples.psshard.ShardMessages.ShardInfo;
import io.rsocket.exceptions.RejectedException;
import org.springframework.messaging.handler.annotation.MessageExceptionHandler;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.stereotype.Controller;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The shard's RSocket routes: {@code fetch} (request-response: keys in, rows out), {@code push}
 * (fire-and-forget: a gradient batch applied with an SGD step), {@code push-stream}
 * (request-channel: gradient batches in, one {@link PushAck} out per batch) and {@code info}.
 * A key this shard does not hold fails the call with an error that names the right shard.
 */
@Controller
public class ShardController {

    private final EmbeddingTable table;
    private final ShardProperties shard;

    /** Routes over {@code table}. */
    public ShardController(EmbeddingTable table, ShardProperties shard) {
        this.table = table;
        this.shard = shard;
    }

    /** The rows of the keys asked for. */
    @MessageMapping("fetch")
    public Mono<FetchReply> fetch(FetchRequest request) {
        return Mono.fromCallable(() -> {
            long[] keys = request.keys();
            float[][] rows = new float[keys.length][];
            for (int i = 0; i < keys.length; i++) {
                rows[i] = table.row(keys[i]);
            }
            return new FetchReply(keys, rows);
        });
    }

    /** Applies one batch of gradients; nothing answers (fire-and-forget). */
    @MessageMapping("push")
    public Mono<Void> push(GradientBatch batch) {
        return Mono.fromRunnable(() -> apply(batch));
    }

    /** Applies each batch as it comes, acknowledging each. */
    @MessageMapping("push-stream")
    public Flux<PushAck> pushStream(Flux<GradientBatch> batches) {
        return batches.map(b -> new PushAck(apply(b)));
    }

    /** What this shard holds. */
    @MessageMapping("info")
    public Mono<ShardInfo> info() {
        return Mono.just(new ShardInfo(shard.index(), shard.count(), shard.rows(), shard.dimension()));
    }

    /**
     * A bad request (a key this shard does not hold, a gradient of the wrong size) fails the call
     * with its message, without the stack trace Spring would log for an unhandled exception.
     */
    @MessageExceptionHandler(IllegalArgumentException.class)
    public Mono<Void> badRequest(IllegalArgumentException e) {
        return Mono.error(new RejectedException(e.getMessage()));
    }

    private int apply(GradientBatch batch) {
        if (batch.keys().length != batch.gradients().length) {
            throw new IllegalArgumentException("a gradient batch has " + batch.keys().length + " keys but " + batch.gradients().length
                    + " gradients; send one gradient per key");
        }
        for (int i = 0; i < batch.keys().length; i++) {
            table.apply(batch.keys()[i], batch.gradients()[i]);
        }
        return batch.keys().length;
    }
}
