/**
 * The public Reactor API over RDMA, modelled on Reactor Netty's TcpServer and
 * TcpClient: {@link io.reactorrdma.RdmaResources} (provider, thread domains, allocator, meters),
 * {@link io.reactorrdma.RdmaServer} and {@link io.reactorrdma.RdmaClient} (immutable builders),
 * {@link io.reactorrdma.RdmaConnection} with its {@link io.reactorrdma.RdmaInbound} (a
 * {@code Flux<ByteBuf>}, one element per message, zero-copy) and {@link io.reactorrdma.RdmaOutbound}
 * (sends requesting only as the connection can take them).
 */
package io.reactorrdma;
