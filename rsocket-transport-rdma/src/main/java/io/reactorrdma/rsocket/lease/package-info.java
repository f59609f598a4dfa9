/**
 * Requests paced by the receiver's capacity (docs/RECOVERY.md). Server side:
 * {@link io.reactorrdma.rsocket.lease.ReceiveCapacityLeases} makes a server grant RSocket leases that
 * follow its connections' RDMA receive windows and headroom ({@code ReceiveCapacity} is the
 * server-wide ledger, {@code CapacityLeaseSender} one connection's side). Client side:
 * {@link io.reactorrdma.rsocket.lease.CapacityGate} holds requests until their connection has room
 * (a lease with requests left, a queue below its pressure limit; {@code CapacityGatedRSocket} is
 * one connection's gate). Each class logs under its own name.
 */
package io.reactorrdma.rsocket.lease;
