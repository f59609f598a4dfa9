/**
 * One shard served by several replicas (docs/RECOVERY.md): {@link io.reactorrdma.rsocket.shard.ShardClient}
 * balances the shard's requests over its live replicas with RSocket's
 * {@code WeightedLoadbalanceStrategy} (fed by each {@code Replica}'s {@code ReplicaStats} and the
 * connection's {@code availability()}), ejects a replica whose connection closes and reconnects it
 * with back-off; it keeps the {@code ShardSpec} its builder fixed. Per-call
 * {@link io.reactorrdma.rsocket.shard.CallOptions} in the Reactor Context
 * choose the timeout and whether a call is idempotent; idempotent calls are retried on another
 * replica within a {@code RetryBudget} ({@code RetryableErrors} says which failures may be) and
 * request-responses are hedged after a tracked latency quantile ({@code LatencyTracker},
 * {@code HedgeLimiter}, {@code HedgedRace}); {@code RecoveryMeters} counts them. A call lost with its
 * replica's connection fails with a {@link io.reactorrdma.rsocket.shard.PeerClosedChannelException}
 * naming the replica and the close cause; replica connects go through {@code GuardedConnect}, which
 * lets a cancel not cut RSocket's setup (that would leave the SETUP frame unreleased). Each class
 * logs under its own name.
 */
package io.reactorrdma.rsocket.shard;
