/**
 * RSocket over RDMA: RSocket-Java's transport SPI ({@code ClientTransport}, {@code ServerTransport},
 * {@code DuplexConnection}) on reactor-rdma connections. One RSocket frame is one RDMA message
 * (boundaries are preserved, so there is no length prefix); frames are born in registered memory
 * ({@code DuplexConnection.alloc()}) and received zero-copy. Recovery above the transport lives
 * in one package per concern: {@code .fallback}, {@code .shard}, {@code .lease} and {@code .fanout}.
 */
package io.reactorrdma.rsocket;
