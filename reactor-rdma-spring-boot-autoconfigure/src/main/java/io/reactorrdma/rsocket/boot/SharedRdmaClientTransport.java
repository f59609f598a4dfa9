package io.reactorrdma.rsocket.boot;

import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.rsocket.DuplexConnection;
import io.rsocket.transport.ClientTransport;
import reactor.core.publisher.Mono;

import java.util.function.Supplier;

/**
 * An RDMA client transport on the application's shared resources that looks them up on each
 * connect, not before: while the provider cannot open, each connect fails with the provider's own
 * error (a {@code ProviderUnavailableException}, which the fallback transport logs and counts as its
 * cause) and the next one tries again. It never disposes the shared resources; the context does.
 */
final class SharedRdmaClientTransport implements ClientTransport {

    private final Supplier<RdmaResources> resources;
    private final String host;
    private final int port;
    private final int maxFrameLength;

    SharedRdmaClientTransport(Supplier<RdmaResources> resources, String host, int port, int maxFrameLength) {
        this.resources = resources;
        this.host = host;
        this.port = port;
        this.maxFrameLength = maxFrameLength;
    }

    @Override
    public Mono<DuplexConnection> connect() {
        return Mono.defer(() -> {
            RdmaResources r = resources.get();
            return RdmaClientTransport.create(RdmaClient.create().host(host).port(port).runOn(r)).connect();
        });
    }

    @Override
    public int maxFrameLength() {
        return maxFrameLength;
    }

    @Override
    public String toString() {
        return "rdma://" + host + ":" + port;
    }
}
