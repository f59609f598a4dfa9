/**
 * Recovery above the RDMA transport (issue 11, DESIGN.md §7). Serving and falling back:
 * {@link io.reactorrdma.rsocket.recovery.RdmaServers#dual RdmaServers.dual} binds one RSocket acceptor on an RDMA
 * port and a TCP port at once ({@link io.reactorrdma.rsocket.recovery.DualServer});
 * {@link io.reactorrdma.rsocket.recovery.FallbackClientTransport} connects over RDMA, falls back to TCP when RDMA
 * cannot connect, probes RDMA in the background and moves new requests back to it once it answers
 * (a switching connection drains the TCP one); {@link io.reactorrdma.rsocket.recovery.LazyRdmaClientTransport}
 * builds its {@code RdmaResources} on the first connect that can, so a provider that cannot open
 * yet is retried on every attempt.
 */
package io.reactorrdma.rsocket.recovery;
