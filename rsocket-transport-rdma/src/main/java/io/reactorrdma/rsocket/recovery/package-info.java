/**
 * Recovery above the RDMA transport (issue 11, DESIGN.md §7). Replicas, timeouts, retries and
 * hedging: {@link io.reactorrdma.rsocket.recovery.ShardClient} balances one shard's requests over
 * its live replicas with RSocket's {@code WeightedLoadbalanceStrategy} (fed by its own
 * {@code ReplicaStats} and the connection's {@code availability()}), ejects a replica whose
 * connection closes and reconnects it with back-off; per-call {@link io.reactorrdma.rsocket.recovery.CallOptions}
 * in the Reactor Context choose the timeout and whether a call is idempotent; idempotent calls are
 * retried on another replica within a {@code RetryBudget} and request-responses are hedged after a
 * tracked latency quantile ({@code LatencyTracker}, {@code HedgeLimiter}).
 */
package io.reactorrdma.rsocket.recovery;
