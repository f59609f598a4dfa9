/**
 * Inference: a {@link io.reactorrdma.examples.ps.ranker.Ranker} evaluates k models per user request,
 * each fetching its rows from every shard in parallel with the recovery layer's fan-out under a
 * deadline and scoring a dot product; {@link io.reactorrdma.examples.ps.ranker.ShardClients} builds
 * the replicated shard clients (balancing, retries, hedging) or plain ones;
 * {@link io.reactorrdma.examples.ps.ranker.RankerMain} runs rankers as a process, reaching the shards its
 * {@link io.reactorrdma.examples.ps.ranker.ShardTargets} options name.
 */
package io.reactorrdma.examples.ps.ranker;
