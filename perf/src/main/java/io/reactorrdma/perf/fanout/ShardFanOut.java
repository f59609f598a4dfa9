package io.reactorrdma.perf.fanout;

import io.rsocket.Payload;
import reactor.core.publisher.Mono;

import java.util.List;
import java.util.function.IntFunction;

/**
 * How the {@code fanout} scenario reaches its shards: one call sends a sub-request to every shard
 * in parallel and completes with all answers. The scenario measures whatever implements this,
 * chosen by {@code --client} in {@link FanoutRunner#connect}: {@link RecoveringFanOut} (the
 * default: the recovery layer's {@code ShardClient} per shard and its {@code FanOut}, with or
 * without hedging) or {@link LoadbalancedFanOut} (RSocket-Java's own load balancer per shard).
 */
interface ShardFanOut extends AutoCloseable {

    /**
     * Sends {@code subRequest.apply(shard)} to each shard, {@code 0 .. shards-1}, and completes with
     * the answers in shard order; the caller releases them. Fails with the first failure (answers
     * already in are released then).
     */
    Mono<List<Payload>> fanOut(IntFunction<Payload> subRequest);

    /** The number of shards a fan-out reaches. */
    int shards();

    /** Sub-requests, hedges and retries so far; {@link RecoveryCounts#NONE} for a client that neither hedges nor retries. */
    default RecoveryCounts counts() {
        return RecoveryCounts.NONE;
    }

    /** Closes every connection and waits until they are closed. */
    @Override
    void close();
}
