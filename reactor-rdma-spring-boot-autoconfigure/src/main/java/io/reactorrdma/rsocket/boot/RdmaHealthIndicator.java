package io.reactorrdma.rsocket.boot;

import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaResourcesStatistics;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * Actuator health indicator {@code rdma}. It reports what exists and never creates anything: it
 * does not open the provider nor start I/O threads.
 * <ul>
 *   <li>DOWN while the RSocket server serves TCP only because its RDMA provider could not open
 *       ({@code servingTcpOnly}, with the provider's error), even if resources were created since:
 *       the server does not retry RDMA;</li>
 *   <li>the shared {@link RdmaResources} once created: UP with the provider, device, I/O threads,
 *       engines, {@code engineFailures} (engines that ended on a lost peer — dead, silent past the
 *       heartbeat/peer timeout, a transport error — or a protocol error, not on a close:
 *       {@link RdmaResourcesStatistics#engineFailures()}, meter {@code rdma.engine.failures}), open sockets, live
 *       buffers and registered bytes; DOWN once disposed;</li>
 *   <li>not created: DOWN with the provider's error when the last attempt to create them failed
 *       (the attempt the application made: health does not try again), else UP with
 *       {@code resources} "not created yet: created on first use".</li>
 * </ul>
 * With the auto-configured {@link RdmaRSocketRequesters}, also (UP or DOWN) {@code fallbacksInUse},
 * their connections on TCP now, and {@code fallbacks}, how often they fell back since start.
 */
public class RdmaHealthIndicator extends AbstractHealthIndicator {

    static final String NOT_CREATED = "not created yet: created on first use";

    private final Supplier<RdmaResources> existing;
    private final Supplier<? extends Throwable> lastFailure;
    private final Supplier<? extends Throwable> servingTcpOnlyBecause;
    private final ObjectProvider<RdmaRSocketRequesters> requesters;

    /** Reports on the resources {@code existing} gives when they exist (it returns null while they do not). */
    public RdmaHealthIndicator(Supplier<RdmaResources> existing) {
        this(existing, () -> null, () -> null, null);
    }

    /**
     * @param existing              the resources if they were created, else null; never creates them
     * @param lastFailure           why the last attempt to create them failed, or null
     * @param servingTcpOnlyBecause why the RSocket server serves TCP only (its provider's error), or null
     * @param requesters            the auto-configured requesters, for their fallbacks; may be null
     */
    public RdmaHealthIndicator(Supplier<RdmaResources> existing, Supplier<? extends Throwable> lastFailure,
                               Supplier<? extends Throwable> servingTcpOnlyBecause, ObjectProvider<RdmaRSocketRequesters> requesters) {
        super("RDMA health check failed");
        this.existing = Objects.requireNonNull(existing, "existing");
        this.lastFailure = Objects.requireNonNull(lastFailure, "lastFailure");
        this.servingTcpOnlyBecause = Objects.requireNonNull(servingTcpOnlyBecause, "servingTcpOnlyBecause");
        this.requesters = requesters;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        RdmaRSocketRequesters rs = requesters == null ? null : requesters.getIfAvailable();
        if (rs != null) {
            builder.withDetail("fallbacksInUse", rs.fallbacksInUse()).withDetail("fallbacks", rs.fallbacks());
        }
        Throwable tcpOnly = servingTcpOnlyBecause.get();
        RdmaResources r = existing.get();
        if (r == null) {
            Throwable failure = tcpOnly != null ? tcpOnly : lastFailure.get();
            if (failure != null) {
                builder.down(failure);
            } else {
                builder.up();
            }
            builder.withDetail("resources", NOT_CREATED);
            if (tcpOnly != null) {
                builder.withDetail("servingTcpOnly", true);
            }
            return;
        }
        builder.withDetail("resources", r.name());
        if (r.isDisposed()) {
            builder.down().withDetail("reason", "the RDMA resources are disposed");
            return;
        }
        RdmaResourcesStatistics s = r.statistics();
        if (tcpOnly != null) {
            builder.down(tcpOnly).withDetail("servingTcpOnly", true);
        } else {
            builder.up();
        }
        builder.withDetail("provider", s.provider())
                .withDetail("device", s.device())
                .withDetail("threads", s.threads())
                .withDetail("engines", s.engines())
                .withDetail("engineFailures", s.engineFailures())
                .withDetail("sockets", s.sockets())
                .withDetail("liveBuffers", s.liveBuffers())
                .withDetail("registeredBytes", s.registeredBytes());
    }
}
