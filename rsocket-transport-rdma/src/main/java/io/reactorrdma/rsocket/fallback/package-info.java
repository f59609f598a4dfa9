/**
 * Serving over RDMA and TCP at once, and falling back to TCP (docs/RECOVERY.md).
 * {@link io.reactorrdma.rsocket.fallback.RdmaServers#dual RdmaServers.dual} binds one RSocket acceptor on an RDMA
 * port and a TCP port at once ({@link io.reactorrdma.rsocket.fallback.DualServer});
 * {@link io.reactorrdma.rsocket.fallback.FallbackClientTransport} connects over RDMA, falls back to TCP when RDMA
 * cannot connect, probes RDMA in the background and moves new requests back to it once it answers:
 * a {@code SwitchingDuplexConnection} drains the TCP connection while new streams go to RDMA
 * ({@code StreamLifecycle} tells which streams are still open, {@code LeaseHandOver} when a leased
 * session may move). {@link io.reactorrdma.rsocket.fallback.LazyRdmaClientTransport} builds its
 * {@code RdmaResources} on the first connect that can, so a provider that cannot open yet is
 * retried on every attempt. Each class logs under its own name.
 */
package io.reactorrdma.rsocket.fallback;
