package io.reactorrdma.rsocket.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.reactorrdma.rsocket.fallback.FallbackClientTransport;
import io.reactorrdma.rsocket.fallback.LazyRdmaClientTransport;
import io.rsocket.transport.ClientTransport;
import io.rsocket.transport.netty.client.TcpClientTransport;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.messaging.rsocket.RSocketRequester;

import java.time.Duration;
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
 *
 * // falling back to the server's TCP port (7001) when RDMA cannot connect, returning once it can:
 * RSocketRequester resilient = requesters.tcpFallback(true).requester("ps-0.example", 7000);
 * RSocketRequester explicit = requesters.tcpFallback(9000).requester("ps-0.example", 7000);
 * }</pre>
 *
 * The fallback defaults come from {@code reactor.rdma.rsocket.client.*}: {@code tcp-fallback}
 * (default off), the TCP port ({@code tcp-port}, or the RDMA port plus {@code tcp-port-offset},
 * default +1) and the {@link FallbackClientTransport} timings. {@link #tcpFallback(boolean)} and
 * {@link #tcpFallback(int)} return a copy with other settings; this object is unchanged. A requester
 * with fallback connects over RDMA and, when that fails (the provider cannot open, nothing listens,
 * a timeout...), over TCP, probing RDMA in the background to return to it; see
 * {@link FallbackClientTransport} for the policy and the {@code rdma.fallbacks}/{@code rdma.returns}
 * meters. {@link #fallbacksInUse()} and {@link #fallbacks()} feed health {@code rdma}.
 *
 * <p>A requester connects lazily, on its first request, as {@link RSocketRequester.Builder#transport} does;
 * dispose it when done ({@code requester.dispose()}).
 */
public class RdmaRSocketRequesters {

    private final Supplier<RSocketRequester.Builder> builders;
    private final Supplier<RdmaResources> resources;
    private final Fallback fallback;
    private final Supplier<MeterRegistry> registry;
    private final int maxFrameLength;
    private final FallbackConnections connections;

    /**
     * {@code builders} gives a fresh builder each time (Boot's is a prototype bean); {@code resources} the shared
     * resources. No TCP fallback.
     */
    public RdmaRSocketRequesters(ObjectProvider<RSocketRequester.Builder> builders, ObjectProvider<RdmaResources> resources) {
        this(builders::getObject, resources::getObject);
    }

    /** As above, with plain suppliers (outside a Spring context). No TCP fallback unless asked with {@link #tcpFallback}. */
    public RdmaRSocketRequesters(Supplier<RSocketRequester.Builder> builders, Supplier<RdmaResources> resources) {
        this(builders, resources, new RdmaProperties.Client(), () -> null, LazyRdmaClientTransport.DEFAULT_MAX_FRAME_LENGTH);
    }

    /**
     * As the auto-configuration makes it: the fallback settings from {@code client}; {@code registry}
     * gives the registry of the fallback meters (null: {@link Metrics#globalRegistry}); RDMA
     * connections declare frames of at most {@code maxFrameLength} bytes (the engine's maximum message
     * size, at most RSocket's 16 MB).
     */
    public RdmaRSocketRequesters(ObjectProvider<RSocketRequester.Builder> builders, ObjectProvider<RdmaResources> resources,
                                 RdmaProperties.Client client, Supplier<MeterRegistry> registry, int maxFrameLength) {
        this(builders::getObject, () -> {
            try {
                return resources.getObject();
            } catch (BeansException e) {
                // the provider's own error (ProviderUnavailableException...), not Spring's wrapper: it is the fallback's cause
                throw NestedExceptionUtils.getMostSpecificCause(e) instanceof RuntimeException r ? r : e;
            }
        }, client, registry, maxFrameLength);
    }

    private RdmaRSocketRequesters(Supplier<RSocketRequester.Builder> builders, Supplier<RdmaResources> resources,
            RdmaProperties.Client client,
                                  Supplier<MeterRegistry> registry, int maxFrameLength) {
        this(builders, resources, Fallback.of(client), registry, maxFrameLength, new FallbackConnections());
    }

    private RdmaRSocketRequesters(Supplier<RSocketRequester.Builder> builders, Supplier<RdmaResources> resources, Fallback fallback,
                                  Supplier<MeterRegistry> registry, int maxFrameLength, FallbackConnections connections) {
        this.builders = Objects.requireNonNull(builders, "builders");
        this.resources = Objects.requireNonNull(resources, "resources");
        this.fallback = fallback;
        this.registry = Objects.requireNonNull(registry, "registry");
        this.maxFrameLength = maxFrameLength;
        this.connections = connections;
    }

    /**
     * A copy whose requesters fall back to TCP ({@code true}) or stay on RDMA ({@code false}); the
     * TCP port follows {@code reactor.rdma.rsocket.client.tcp-port} / {@code tcp-port-offset}.
     */
    public RdmaRSocketRequesters tcpFallback(boolean enabled) {
        return with(new Fallback(enabled, fallback.tcpPort, fallback.tcpPortOffset, fallback.rdmaConnectTimeout,
                fallback.totalConnectTimeout, fallback.probeInterval, fallback.firstProbeDelay, fallback.drainTimeout));
    }

    /** A copy whose requesters fall back to the server's TCP port {@code tcpPort}, whatever the RDMA port. */
    public RdmaRSocketRequesters tcpFallback(int tcpPort) {
        checkPort(tcpPort, "tcpPort", "the server's TCP port (reactor.rdma.rsocket.server.tcp-port)");
        return with(new Fallback(true, tcpPort, fallback.tcpPortOffset, fallback.rdmaConnectTimeout,
                fallback.totalConnectTimeout, fallback.probeInterval, fallback.firstProbeDelay, fallback.drainTimeout));
    }

    private RdmaRSocketRequesters with(Fallback f) {
        return new RdmaRSocketRequesters(builders, resources, f, registry, maxFrameLength, connections);
    }

    /** Whether this object's requesters fall back to TCP. */
    public boolean isTcpFallback() {
        return fallback.enabled;
    }

    /** The TCP port a requester to RDMA port {@code rdmaPort} falls back to: the configured TCP port, else {@code rdmaPort} + offset. */
    public int tcpPortFor(int rdmaPort) {
        int tcp = fallback.tcpPort != null ? fallback.tcpPort : rdmaPort + fallback.tcpPortOffset;
        if (tcp < 1 || tcp > 65535) {
            throw new IllegalArgumentException("the TCP fallback port for RDMA port " + rdmaPort + " is " + tcp + " (offset "
                    + fallback.tcpPortOffset
                    + "), outside 1..65535; set reactor.rdma.rsocket.client.tcp-port or a smaller tcp-port-offset");
        }
        return tcp;
    }

    /** A requester to {@code host:port} over RDMA, from a fresh auto-configured builder. */
    public RSocketRequester requester(String host, int port) {
        return requester(builders.get(), host, port);
    }

    /** A requester to {@code host:port} over RDMA, from {@code builder} (customise it first: setup data, metadata...). */
    public RSocketRequester requester(RSocketRequester.Builder builder, String host, int port) {
        return Objects.requireNonNull(builder, "builder").transport(transport(host, port));
    }

    /**
     * RSocket's client transport to {@code host:port} over RDMA on the shared resources; with TCP
     * fallback a {@link FallbackClientTransport} to that RDMA port and {@link #tcpPortFor the TCP one}.
     */
    public ClientTransport transport(String host, int port) {
        Objects.requireNonNull(host, "host");
        checkPort(port, "port", "the server's RDMA port (reactor.rdma.rsocket.server.port)");
        if (!fallback.enabled) {
            RdmaResources r = resources.get();
            return RdmaClientTransport.create(RdmaClient.create().host(host).port(port).runOn(r));
        }
        MeterRegistry meters = registry.get();
        return FallbackClientTransport.builder(new SharedRdmaClientTransport(resources, host, port, maxFrameLength),
                        connections.track(TcpClientTransport.create(host, tcpPortFor(port))))
                .rdmaConnectTimeout(fallback.rdmaConnectTimeout)
                .totalConnectTimeout(fallback.totalConnectTimeout)
                .probeInterval(fallback.probeInterval)
                .firstProbeDelay(fallback.firstProbeDelay)
                .drainTimeout(fallback.drainTimeout)
                .meterRegistry(meters == null ? Metrics.globalRegistry : meters)
                .build();
    }

    /** Connections of these requesters (and their copies) on TCP now, a draining one included. */
    public int fallbacksInUse() {
        return connections.inUse();
    }

    /** Times these requesters (and their copies) fell back to TCP since the application started. */
    public long fallbacks() {
        return connections.fallbacks();
    }

    private static void checkPort(int port, String name, String what) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(name + " must be 1..65535, got " + port + "; pass " + what);
        }
    }

    /**
     * Checks {@code reactor.rdma.rsocket.client.*} at startup: a bad value is an {@link InvalidRdmaPropertyException}
     * naming the property.
     */
    static void check(RdmaProperties.Client c) {
        String at = "reactor.rdma.rsocket.client.";
        if (c.getTcpPort() != null && (c.getTcpPort() < 1 || c.getTcpPort() > 65535)) {
            throw new InvalidRdmaPropertyException(at + "tcp-port", c.getTcpPort(),
                    "a port is 1 to 65535; unset it to use the RDMA port plus tcp-port-offset");
        }
        if (c.getTcpPortOffset() < -65534 || c.getTcpPortOffset() > 65534) {
            throw new InvalidRdmaPropertyException(at + "tcp-port-offset", c.getTcpPortOffset(),
                    "an offset between two ports is -65534 to 65534");
        }
        positive(at + "rdma-connect-timeout", c.getRdmaConnectTimeout());
        positive(at + "total-connect-timeout", c.getTotalConnectTimeout());
        positive(at + "probe-interval", c.getProbeInterval());
        positive(at + "first-probe-delay", c.getFirstProbeDelay());
        positive(at + "drain-timeout", c.getDrainTimeout());
        if (c.getTotalConnectTimeout().compareTo(c.getRdmaConnectTimeout()) <= 0) {
            throw new InvalidRdmaPropertyException(at + "total-connect-timeout", c.getTotalConnectTimeout(),
                    "it must exceed rdma-connect-timeout (" + c.getRdmaConnectTimeout() + "), or no time is left for the TCP fallback");
        }
        if (c.getFirstProbeDelay().compareTo(c.getProbeInterval()) > 0) {
            throw new InvalidRdmaPropertyException(at + "first-probe-delay", c.getFirstProbeDelay(),
                    "it must not exceed probe-interval (" + c.getProbeInterval() + "), the cap of the probe back-off");
        }
    }

    private static void positive(String property, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new InvalidRdmaPropertyException(property, d, "it must be a positive duration, e.g. 2s or 500ms");
        }
    }

    /** The fallback settings, immutable. */
    private record Fallback(boolean enabled, Integer tcpPort, int tcpPortOffset, Duration rdmaConnectTimeout, Duration totalConnectTimeout,
                            Duration probeInterval, Duration firstProbeDelay, Duration drainTimeout) {

        static Fallback of(RdmaProperties.Client c) {
            Objects.requireNonNull(c, "client");
            return new Fallback(c.isTcpFallback(), c.getTcpPort(), c.getTcpPortOffset(), c.getRdmaConnectTimeout(),
                    c.getTotalConnectTimeout(),
                    c.getProbeInterval(), c.getFirstProbeDelay(), c.getDrainTimeout());
        }
    }
}
