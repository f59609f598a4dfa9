package io.reactorrdma.perf.fanout;

import io.rsocket.Payload;
import reactor.core.publisher.Mono;

import java.util.List;
import java.util.function.IntFunction;

/**
 * How the {@code fanout} scenario reaches its shards: one call sends a sub-request to every shard
 * in parallel and completes with all answers. The scenario measures whatever implements this;
 * {@link LoadbalancedFanOut} is RSocket-Java's own load balancer per shard. A replicated shard
 * client with hedging (the recovery layer's) plugs in here as a second implementation, chosen in
 * {@link FanoutRunner#connect}.
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

    /** Closes every connection and waits until they are closed. */
    @Override
    void close();
}
