package io.reactorrdma.rsocket.fallback;

import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.rsocket.DuplexConnection;
import io.rsocket.frame.FrameLengthCodec;
import io.rsocket.transport.ClientTransport;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * An RDMA {@link ClientTransport} that builds its {@link RdmaResources} on the first connect that
 * can: when the provider cannot open yet (no device, an shm directory it may not use: a
 * {@code ProviderUnavailableException}) the connect fails with that error and the next connect
 * tries again, so a {@link FallbackClientTransport} runs on TCP meanwhile and returns to RDMA once
 * the provider opens. Resources once built are kept for later connects (a refused connect does not
 * rebuild them) and rebuilt only after they were disposed. The transport owns what the supplier
 * returns: {@link #dispose()} disposes it, and so does a connect that fails to use what it just
 * built (a client factory that throws, a frame limit the resources cannot carry).
 *
 * <pre>{@code
 * LazyRdmaClientTransport rdma = LazyRdmaClientTransport.create(
 *         () -> RdmaResources.builder("client").provider("shm").build(),
 *         resources -> RdmaClient.create().host("10.0.0.7").port(7000).runOn(resources));
 * }</pre>
 */
public final class LazyRdmaClientTransport implements ClientTransport, Disposable {

    /**
     * The frame length the transport declares before its resources exist: the engine's default
     * maximum message size, capped at RSocket's 24-bit frame length.
     */
    public static final int DEFAULT_MAX_FRAME_LENGTH = Math.min(EngineConfig.DEFAULT_MAX_MESSAGE_SIZE, FrameLengthCodec.FRAME_LENGTH_MASK);

    private final Supplier<RdmaResources> resourcesSupplier;
    private final Function<RdmaResources, RdmaClient> clientFactory;
    private final int maxFrameLength;
    private RdmaResources resources; // under this
    private RdmaClientTransport transport; // under this
    private boolean disposed; // under this

    private LazyRdmaClientTransport(Supplier<RdmaResources> resources, Function<RdmaResources, RdmaClient> client, int maxFrameLength) {
        this.resourcesSupplier = Objects.requireNonNull(resources, "resources");
        this.clientFactory = Objects.requireNonNull(client, "client");
        if (maxFrameLength < 64 || maxFrameLength > FrameLengthCodec.FRAME_LENGTH_MASK) {
            throw new IllegalArgumentException("maxFrameLength must be 64.." + FrameLengthCodec.FRAME_LENGTH_MASK + " bytes, got "
                    + maxFrameLength);
        }
        this.maxFrameLength = maxFrameLength;
    }

    /** Builds resources with {@code resources} and a client on them with {@code client}; frames up to {@link #DEFAULT_MAX_FRAME_LENGTH}. */
    public static LazyRdmaClientTransport create(Supplier<RdmaResources> resources, Function<RdmaResources, RdmaClient> client) {
        return new LazyRdmaClientTransport(resources, client, DEFAULT_MAX_FRAME_LENGTH);
    }

    /**
     * As {@link #create(Supplier, Function)}, declaring {@code maxFrameLength} (RSocket fragments
     * larger frames): it must not exceed the engine's maximum message size of the resources built,
     * or connects fail saying so.
     */
    public static LazyRdmaClientTransport create(Supplier<RdmaResources> resources, Function<RdmaResources, RdmaClient> client,
                                                 int maxFrameLength) {
        return new LazyRdmaClientTransport(resources, client, maxFrameLength);
    }

    /** Connects to {@code host:port} on resources {@code resources} builds. */
    public static LazyRdmaClientTransport create(Supplier<RdmaResources> resources, String host, int port) {
        Objects.requireNonNull(host, "host");
        return create(resources, r -> RdmaClient.create().host(host).port(port).runOn(r));
    }

    /** Builds the resources if none are usable, then connects; fails with the provider's error when it cannot open. */
    @Override
    public Mono<DuplexConnection> connect() {
        return Mono.defer(() -> {
            RdmaClientTransport t;
            try {
                t = transport();
            } catch (RuntimeException e) {
                return Mono.error(e);
            }
            return t.connect();
        });
    }

    private synchronized RdmaClientTransport transport() {
        if (disposed) {
            throw new IllegalStateException("this LazyRdmaClientTransport was disposed; create a new one");
        }
        if (transport != null && !resources.isDisposed()) {
            return transport;
        }
        RdmaResources built = Objects.requireNonNull(resourcesSupplier.get(), "the resources supplier returned null");
        try {
            RdmaClient client = Objects.requireNonNull(clientFactory.apply(built), "the client factory returned null");
            if (client.resources() != built) {
                throw new IllegalStateException("the client factory must return a client that runs on the resources it is given "
                        + "(runOn(resources)), not on " + (client.resources() == null ? "none" : client.resources().name()));
            }
            RdmaClientTransport t = RdmaClientTransport.create(client);
            if (t.maxFrameLength() < maxFrameLength) {
                throw new IllegalStateException("the resources " + built.name() + " carry frames of at most " + t.maxFrameLength()
                        + " bytes, but this transport declared " + maxFrameLength + "; raise the engine's maximum message size "
                        + "or declare less with LazyRdmaClientTransport.create(resources, client, maxFrameLength)");
            }
            resources = built;
            transport = t;
            return t;
        } catch (RuntimeException e) {
            built.dispose(); // ours, and unusable
            throw e;
        }
    }

    /** The resources built so far, if any. */
    public synchronized Optional<RdmaResources> resources() {
        return Optional.ofNullable(resources);
    }

    /** The frame length declared at creation ({@link #DEFAULT_MAX_FRAME_LENGTH} unless given). */
    @Override
    public int maxFrameLength() {
        return maxFrameLength;
    }

    /** Disposes the resources built (their connections close); later connects fail. */
    @Override
    public void dispose() {
        RdmaResources r;
        synchronized (this) {
            disposed = true;
            r = resources;
        }
        if (r != null) {
            r.dispose();
        }
    }

    /** True once {@link #dispose()} was called. */
    @Override
    public synchronized boolean isDisposed() {
        return disposed;
    }
}
