/**
 * Recovery above the RDMA transport (docs/RECOVERY.md). Serving and falling back:
 * {@link io.reactorrdma.rsocket.recovery.RdmaServers#dual RdmaServers.dual} binds one RSocket acceptor on an RDMA
 * port and a TCP port at once ({@link io.reactorrdma.rsocket.recovery.DualServer});
 * {@link io.reactorrdma.rsocket.recovery.FallbackClientTransport} connects over RDMA, falls back to TCP when RDMA
 * cannot connect, probes RDMA in the background and moves new requests back to it once it answers
 * (a switching connection drains the TCP one); {@link io.reactorrdma.rsocket.recovery.LazyRdmaClientTransport}
 * builds its {@code RdmaResources} on the first connect that can, so a provider that cannot open
 * yet is retried on every attempt.
 *
 * <p>Replicas, timeouts, retries and hedging: {@link io.reactorrdma.rsocket.recovery.ShardClient} balances one shard's requests over
 * its live replicas with RSocket's {@code WeightedLoadbalanceStrategy} (fed by its own
 * {@code ReplicaStats} and the connection's {@code availability()}), ejects a replica whose
 * connection closes and reconnects it with back-off; per-call {@link io.reactorrdma.rsocket.recovery.CallOptions}
 * in the Reactor Context choose the timeout and whether a call is idempotent; idempotent calls are
 * retried on another replica within a {@code RetryBudget} and request-responses are hedged after a
 * tracked latency quantile ({@code LatencyTracker}, {@code HedgeLimiter}). A call lost with its
 * replica's connection fails with a {@link io.reactorrdma.rsocket.recovery.PeerClosedChannelException}
 * naming the replica and the close cause; replica connects go through {@code GuardedConnect}, which
 * lets a cancel not cut RSocket's setup (that would leave the SETUP frame unreleased).
 *
 * <p>Leases from receive capacity:
 * {@link io.reactorrdma.rsocket.recovery.ReceiveCapacityLeases} makes a server grant RSocket leases
 * that follow its connections' RDMA receive windows and headroom ({@code ReceiveCapacity} is the
 * server-wide ledger, {@code CapacityLeaseSender} one connection's side). Fan-out:
 * {@link io.reactorrdma.rsocket.recovery.FanOut} sends one request to many shards' clients under a
 * deadline (the parameter-server fan-out), fail-fast ({@link io.reactorrdma.rsocket.recovery.FanOutException}) or with partial
 * results ({@link io.reactorrdma.rsocket.recovery.FanOutResult}; {@code FanOutAnswers} holds the
 * answers while a call runs). A client-side gate: {@link io.reactorrdma.rsocket.recovery.CapacityGate}
 * holds requests until their connection has room ({@code CapacityGatedRSocket}).
 */
package io.reactorrdma.rsocket.recovery;
