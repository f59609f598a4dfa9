/**
 * The RSocket scenarios {@code rsocket-rr} and {@code rsocket-stream}: {@link io.reactorrdma.perf.rsocket.RSocketRunner}
 * sets a transport up (rdma-shm, rdma-loopback, tcp, local), {@link io.reactorrdma.perf.rsocket.RSocketClientEnd} and
 * {@link io.reactorrdma.perf.rsocket.RSocketServerEnd} are the two ends, {@link io.reactorrdma.perf.rsocket.RequestResponseLoop}
 * and {@link io.reactorrdma.perf.rsocket.StreamLoop} the per-connection loops.
 */
package io.reactorrdma.perf.rsocket;
