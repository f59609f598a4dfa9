package io.reactorrdma.rsocket.boot;

import io.reactorrdma.RdmaResources;
import io.reactorrdma.engine.EngineMetrics;
import io.reactorrdma.engine.ThreadDomain;
import io.reactorrdma.memory.RegisteredAllocator;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import org.springframework.core.NestedExceptionUtils;

import java.util.Objects;

/**
 * Actuator health indicator {@code rdma}: UP with the provider, device, I/O threads, engines,
 * {@code engineFailures} (engines that ended on a lost peer — dead, silent past the heartbeat/peer
 * timeout, a transport error — or a protocol error, not on a close: {@link EngineMetrics#engineFailures()},
 * meter {@code rdma.engine.failures}), open sockets, live buffers and registered bytes of the shared
 * {@link RdmaResources}; DOWN when they
 * cannot be created (the provider's error, for example no RDMA device) or were disposed. With the
 * auto-configured {@link RdmaRSocketRequesters}, also (UP or DOWN) {@code fallbacksInUse}, their
 * connections on TCP now, and {@code fallbacks}, how often they fell back since start.
 */
public class RdmaHealthIndicator extends AbstractHealthIndicator {

    private final ObjectProvider<RdmaResources> resources;
    private final ObjectProvider<RdmaRSocketRequesters> requesters;

    /** Reports on the resources {@code resources} gives (creating them if they were not yet). */
    public RdmaHealthIndicator(ObjectProvider<RdmaResources> resources) {
        this(resources, null);
    }

    /**
     * As above, adding the fallbacks of the auto-configured requesters when {@code requesters} gives
     * them: {@code fallbacksInUse} (their connections on TCP now) and {@code fallbacks} (since start).
     */
    public RdmaHealthIndicator(ObjectProvider<RdmaResources> resources, ObjectProvider<RdmaRSocketRequesters> requesters) {
        super("RDMA health check failed");
        this.resources = Objects.requireNonNull(resources, "resources");
        this.requesters = requesters;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        RdmaRSocketRequesters rs = requesters == null ? null : requesters.getIfAvailable();
        if (rs != null) {
            builder.withDetail("fallbacksInUse", rs.fallbacksInUse()).withDetail("fallbacks", rs.fallbacks());
        }
        RdmaResources r;
        try {
            r = resources.getObject();
        } catch (BeansException e) {
            // A provider that cannot open: DOWN with its own error (the diagnosis), not Spring's wrapper.
            builder.down(NestedExceptionUtils.getMostSpecificCause(e));
            return;
        }
        builder.withDetail("resources", r.name());
        if (r.isDisposed()) {
            builder.down().withDetail("reason", "the RDMA resources are disposed");
            return;
        }
        long engines = 0;
        long sockets = 0;
        long engineFailures = 0;
        ThreadDomain[] domains = r.domains();
        for (ThreadDomain d : domains) {
            EngineMetrics m = d.metrics();
            engines += m.engines();
            sockets += m.socketsOpen();
            engineFailures += m.engineFailures();
        }
        RegisteredAllocator a = r.allocator();
        long registered = a.local().statistics().registeredBytes() + a.remoteWritable().statistics().registeredBytes()
                + a.destinationStatistics().registeredBytes();
        builder.up()
                .withDetail("provider", r.context().providerName())
                .withDetail("device", r.context().deviceName())
                .withDetail("threads", domains.length)
                .withDetail("engines", engines)
                .withDetail("engineFailures", engineFailures)
                .withDetail("sockets", sockets)
                .withDetail("liveBuffers", a.liveBuffers())
                .withDetail("registeredBytes", registered);
    }
}
