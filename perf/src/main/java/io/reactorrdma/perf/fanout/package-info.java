/**
 * The {@code fanout} scenario, the parameter-server pattern: one client fans each request out to
 * every shard of a replicated deployment and waits for all answers. {@link io.reactorrdma.perf.fanout.FanoutRunner}
 * forks the server JVMs ({@link io.reactorrdma.perf.fanout.FanoutServers}: one per replica set, hosting one
 * echoing RSocket server per shard, one of them optionally slow) and measures closed loops of fan-outs
 * ({@code FanoutLoop}) with sub-request sizes drawn from a KB-to-MB mix ({@code SizeMix}). The client reaches the
 * shards through {@code ShardFanOut}, chosen by {@code --client}: by default the recovery layer's
 * {@code ShardClient} per shard and its {@code FanOut} helper ({@code RecoveringFanOut}, hedging unless
 * {@code --hedging off}; its hedges and retries in {@code RecoveryCounts}), or RSocket-Java's
 * {@code LoadbalanceRSocketClient} per shard ({@code LoadbalancedFanOut}, {@code --client plain}).
 */
package io.reactorrdma.perf.fanout;
