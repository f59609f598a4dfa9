/**
 * One request to many shards under a deadline, the parameter-server fan-out (docs/RECOVERY.md):
 * {@link io.reactorrdma.rsocket.fanout.FanOut} sends it to each shard's client, fail-fast
 * ({@link io.reactorrdma.rsocket.fanout.FanOutException}) or with partial results
 * ({@link io.reactorrdma.rsocket.fanout.FanOutResult}; {@code FanOutAnswers} holds the answers while
 * a call runs). {@code FanOut} logs under its own name.
 */
package io.reactorrdma.rsocket.fanout;
