/**
 * Recovery above the RDMA transport (issue 11). Leases from receive capacity:
 * {@link io.reactorrdma.rsocket.recovery.ReceiveCapacityLeases} makes a server grant RSocket leases
 * that follow its connections' RDMA receive windows and headroom ({@code ReceiveCapacity} is the
 * server-wide ledger, {@code CapacityLeaseSender} one connection's side). Fan-out:
 * {@link io.reactorrdma.rsocket.recovery.FanOut} sends one request to many shards' clients under a
 * deadline, fail-fast ({@link io.reactorrdma.rsocket.recovery.FanOutException}) or with partial
 * results ({@link io.reactorrdma.rsocket.recovery.FanOutResult}; {@code FanOutAnswers} holds the
 * answers while a call runs). A client-side gate: {@link io.reactorrdma.rsocket.recovery.CapacityGate}
 * holds requests until their connection has room ({@code CapacityGatedRSocket}).
 */
package io.reactorrdma.rsocket.recovery;
