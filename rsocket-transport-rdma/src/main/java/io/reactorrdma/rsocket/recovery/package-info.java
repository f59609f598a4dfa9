/**
 * Recovery above the RDMA transport (issue 11). Leases from receive capacity:
 * {@link io.reactorrdma.rsocket.recovery.ReceiveCapacityLeases} makes a server grant RSocket leases
 * that follow its connections' RDMA receive windows and headroom ({@code ReceiveCapacity} is the
 * ledger, {@code CapacityLeaseSender} one connection's side). Fan-out:
 * {@link io.reactorrdma.rsocket.recovery.FanOut} sends one request to many shards' clients with a
 * deadline, fail-fast or with partial results.
 */
package io.reactorrdma.rsocket.recovery;
