package io.reactorrdma.examples.ps.shard;

import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.rsocket.RdmaServerTransport;
import io.reactorrdma.rsocket.fallback.DualServer;
import io.reactorrdma.rsocket.fallback.RdmaServers;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.netty.server.TcpServerTransport;
import reactor.core.publisher.Mono;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * One shard served over RDMA and TCP at once ({@link RdmaServers#dual}): an {@link EmbeddingShard}
 * in {@code resources}' registered memory behind a {@link ShardResponder}. Both sides decode
 * requests zero-copy and answer from the same table, so a client that falls back to TCP sees the
 * same rows. Fetch replies are built with the registered allocator on both sides (TCP copies them
 * into the socket anyway). {@link #dispose()} closes both listeners and their connections and then
 * releases the table. The caller owns {@code resources}.
 *
 * <pre>{@code
 * ShardServer s = ShardServer.start(ShardConfig.of(0, 4), resources,
 *         new InetSocketAddress("0.0.0.0", 7000), new InetSocketAddress("0.0.0.0", 7100)).block();
 * }</pre>
 */
public final class ShardServer {

    private final EmbeddingShard shard;
    private final ShardResponder responder;
    private final DualServer server;
    private final Mono<Void> onClose;

    private ShardServer(EmbeddingShard shard, ShardResponder responder, DualServer server) {
        this.shard = shard;
        this.responder = responder;
        this.server = server;
        this.onClose = server.onClose().onErrorResume(e -> Mono.empty()).doFinally(s -> shard.release()).cache();
    }

    /**
     * Allocates and fills the table, then binds RDMA at {@code rdma} (on {@code resources}) and TCP at
     * {@code tcp}; port 0 picks a free one. Fails (releasing the table) when either side cannot bind.
     */
    public static Mono<ShardServer> start(ShardConfig config, RdmaResources resources, InetSocketAddress rdma, InetSocketAddress tcp) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(resources, "resources");
        Objects.requireNonNull(rdma, "rdma");
        Objects.requireNonNull(tcp, "tcp");
        return Mono.defer(() -> {
            // the table every ranker reads from lies in memory any peer may READ: a reply of rows is a slice of it, which a
            // client pulls where it lies (the frame header and metadata travel in the request), no copy and no wake of ours
            EmbeddingShard shard = new EmbeddingShard(config, resources.allocRemoteReadable());
            ShardResponder responder = new ShardResponder(shard, resources.alloc());
            RSocketServer rsocket = RSocketServer.create(SocketAcceptor.with(responder)).payloadDecoder(PayloadDecoder.ZERO_COPY);
            RdmaServerTransport rdmaTransport = RdmaServerTransport.create(
                    RdmaServer.create().host(rdma.getHostString()).port(rdma.getPort()).runOn(resources));
            return RdmaServers.dual(rsocket, rdmaTransport, TcpServerTransport.create(tcp))
                    .doOnError(e -> shard.release())
                    .doOnCancel(shard::release)
                    .map(dual -> new ShardServer(shard, responder, dual));
        });
    }

    /** The RDMA port (the real one when 0 was asked for). */
    public int rdmaPort() {
        return server.rdmaAddress().getPort();
    }

    /** The TCP port (the real one when 0 was asked for). */
    public int tcpPort() {
        return server.tcpAddress().getPort();
    }

    /** The table served. */
    public EmbeddingShard shard() {
        return shard;
    }

    /** The responder (e.g. for its count of rejected pushes). */
    public ShardResponder responder() {
        return responder;
    }

    /** Completes once both sides have closed and the table is released. */
    public Mono<Void> onClose() {
        return onClose;
    }

    /** Closes both sides; the table is released once they have closed. */
    public void dispose() {
        server.dispose();
        onClose.subscribe();
    }

    @Override
    public String toString() {
        return "ShardServer{" + shard.config() + ", rdma=" + rdmaPort() + ", tcp=" + tcpPort() + "}";
    }
}
