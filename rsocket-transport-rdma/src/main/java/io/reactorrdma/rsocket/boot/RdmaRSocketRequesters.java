package io.reactorrdma.rsocket.boot;

import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.rsocket.transport.ClientTransport;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.messaging.rsocket.RSocketRequester;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * Makes Spring {@link RSocketRequester}s that connect over RDMA on the application's shared
 * {@link RdmaResources}, from Boot's auto-configured {@link RSocketRequester.Builder} (so the
 * application's {@code RSocketStrategies}, codecs and connector configurers apply):
 *
 * <pre>{@code
 * RSocketRequester requester = requesters.requester("ps-0.example", 7000);
 * Mono<Reply> reply = requester.route("lookup").data(request).retrieveMono(Reply.class);
 * }</pre>
 *
 * A requester connects lazily, on its first request, as {@link RSocketRequester.Builder#transport} does;
 * dispose it when done ({@code requester.dispose()}).
 */
public class RdmaRSocketRequesters {

    private final Supplier<RSocketRequester.Builder> builders;
    private final Supplier<RdmaResources> resources;

    /** {@code builders} gives a fresh builder each time (Boot's is a prototype bean); {@code resources} the shared resources. */
    public RdmaRSocketRequesters(ObjectProvider<RSocketRequester.Builder> builders, ObjectProvider<RdmaResources> resources) {
        this(builders::getObject, resources::getObject);
    }

    /** As above, with plain suppliers (outside a Spring context). */
    public RdmaRSocketRequesters(Supplier<RSocketRequester.Builder> builders, Supplier<RdmaResources> resources) {
        this.builders = Objects.requireNonNull(builders, "builders");
        this.resources = Objects.requireNonNull(resources, "resources");
    }

    /** A requester to {@code host:port} over RDMA, from a fresh auto-configured builder. */
    public RSocketRequester requester(String host, int port) {
        return requester(builders.get(), host, port);
    }

    /** A requester to {@code host:port} over RDMA, from {@code builder} (customise it first: setup data, metadata...). */
    public RSocketRequester requester(RSocketRequester.Builder builder, String host, int port) {
        return Objects.requireNonNull(builder, "builder").transport(transport(host, port));
    }

    /** RSocket's client transport to {@code host:port} over RDMA on the shared resources. */
    public ClientTransport transport(String host, int port) {
        Objects.requireNonNull(host, "host");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be 1..65535, got " + port + "; pass the server's RDMA port (reactor.rdma.rsocket.server.port)");
        }
        RdmaResources r = resources.get();
        return RdmaClientTransport.create(RdmaClient.create().host(host).port(port).runOn(r), r);
    }
}
