package io.reactorrdma.rsocket;

import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.rsocket.DuplexConnection;
import io.rsocket.transport.ClientTransport;
import reactor.core.publisher.Mono;

import java.util.Objects;

/** RSocket's {@link ClientTransport} over RDMA, in the style of {@code TcpClientTransport}. */
public final class RdmaClientTransport implements ClientTransport {

    private final RdmaClient client;
    private final int maxFrameLength;

    private RdmaClientTransport(RdmaClient client, int maxFrameLength) {
        this.client = client;
        this.maxFrameLength = maxFrameLength;
    }

    /** Connects to {@code host:port} on the JVM-wide default {@link RdmaResources#global()}. */
    public static RdmaClientTransport create(String host, int port) {
        RdmaResources resources = RdmaResources.global();
        return create(RdmaClient.create().host(host).port(port).runOn(resources));
    }

    /**
     * Connects with a fully configured client, like {@code TcpClientTransport.create(TcpClient)}:
     * it carries the {@link RdmaResources} it runs on ({@link RdmaClient#runOn}), whose engine's
     * maximum message size bounds a frame.
     */
    public static RdmaClientTransport create(RdmaClient client) {
        RdmaResources resources = Objects.requireNonNull(client, "client").resources();
        if (resources == null) {
            throw new IllegalArgumentException(
                    "the RdmaClient runs on no RdmaResources: call runOn(resources) before RdmaClientTransport.create(client)");
        }
        return new RdmaClientTransport(client,
                Math.min(resources.engineConfig().maxMessageSize(), RdmaDuplexConnection.RSOCKET_FRAME_LENGTH_LIMIT));
    }

    @Override
    public Mono<DuplexConnection> connect() {
        return client.connect().map(RdmaDuplexConnection::new);
    }

    /** The engine's maximum message size: larger frames must be fragmented by RSocket. */
    @Override
    public int maxFrameLength() {
        return maxFrameLength;
    }
}
