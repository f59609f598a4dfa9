package io.reactorrdma.rsocket.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.AllocatorConfig;
import io.reactorrdma.verbs.ProviderUnavailableException;
import io.reactorrdma.verbs.provider.Providers;
import io.reactorrdma.config.SoftConfig;
import org.springframework.util.unit.DataSize;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Supplier;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * Turns {@link RdmaProperties} into {@link RdmaResources}. The settings are checked when the
 * factory is made (at startup: a bad value fails it with an {@link InvalidRdmaPropertyException}
 * naming the property); the provider is opened only by {@link #create()}.
 */
public final class RdmaResourcesFactory {

    private final String name;
    private final String provider;
    private final RdmaResources.Builder builder;
    private final Supplier<MeterRegistry> registry;
    private volatile RuntimeException lastFailure;

    /**
     * Checks {@code properties}; {@code registry} gives the {@link MeterRegistry} to publish the
     * {@code rdma.*} meters to when {@link #create()} runs (it may return null: no meters).
     */
    public RdmaResourcesFactory(RdmaProperties properties, Supplier<MeterRegistry> registry) {
        this.registry = registry;
        this.name = properties.getName();
        if (name == null || name.isBlank()) {
            throw new InvalidRdmaPropertyException("reactor.rdma.name", name, "it must not be blank");
        }
        String p = properties.getProvider() == null ? RdmaProperties.DEFAULT_PROVIDER
                : properties.getProvider().trim().toLowerCase(Locale.ROOT);
        List<String> names = Providers.names();
        if (!names.contains(p)) {
            throw new InvalidRdmaPropertyException("reactor.rdma.provider", properties.getProvider(),
                    "unknown provider; use one of " + names);
        }
        this.provider = p;
        RdmaResources.Builder b = RdmaResources.builder(name).provider(p).idle(properties.getIdle());
        if (properties.getThreads() != null) {
            b = apply(b, "reactor.rdma.threads", properties.getThreads(), x -> x.threads(properties.getThreads()));
        }
        if (properties.getMaxEnginesPerThread() != null) {
            b = apply(b, "reactor.rdma.max-engines-per-thread", properties.getMaxEnginesPerThread(),
                    x -> x.maxEnginesPerThread(properties.getMaxEnginesPerThread()));
        }
        SoftConfig soft = SoftConfig.fromSystemProperties();
        if (properties.getShmDirectory() != null) {
            soft = soft.withShmDirectory(properties.getShmDirectory());
        }
        this.builder = b.softConfig(soft).engine(engine(properties.getEngine())).allocator(allocator(properties.getAllocator()));
    }

    private static EngineConfig engine(RdmaProperties.EngineSettings e) {
        String at = "reactor.rdma.engine.";
        EngineConfig c = EngineConfig.defaults();
        c = apply(c, at + "send-queue-depth", e.getSendQueueDepth(), x -> x.withSendQueueDepth(e.getSendQueueDepth()));
        c = apply(c, at + "recv-queue-depth", e.getRecvQueueDepth(), x -> x.withRecvQueueDepth(e.getRecvQueueDepth()));
        int eager = intBytes(at + "eager-size", e.getEagerSize());
        int clientEager = intBytes(at + "client-eager-size", e.getClientEagerSize());
        int fragment = intBytes(at + "fragment-size", e.getFragmentSize());
        int maxMessage = intBytes(at + "max-message-size", e.getMaxMessageSize());
        long window = bytes(at + "send-window", e.getSendWindow());
        int pullCopyLimit = intBytes(at + "pull-copy-limit", e.getPullCopyLimit());
        c = apply(c, at + "eager-size", e.getEagerSize(), x -> x.withEagerSize(eager));
        c = apply(c, at + "client-eager-size", e.getClientEagerSize(), x -> x.withClientEagerSize(clientEager));
        c = apply(c, at + "fragment-size", e.getFragmentSize(), x -> x.withFragmentSize(fragment));
        c = apply(c, at + "max-message-size", e.getMaxMessageSize(), x -> x.withMaxMessageSize(maxMessage));
        c = apply(c, at + "send-window", e.getSendWindow(), x -> x.withSendWindowBytes(window));
        c = c.withPullRendezvous(e.isPullRendezvous());
        c = apply(c, at + "pull-copy-limit", e.getPullCopyLimit(), x -> x.withPullCopyLimit(pullCopyLimit));
        c = apply(c, at + "socket-message-window", e.getSocketMessageWindow(), x -> x.withSocketMessageWindow(e.getSocketMessageWindow()));
        if (e.getHeartbeatInterval() == null) {
            throw new InvalidRdmaPropertyException(at + "heartbeat-interval", null, "it must be set");
        }
        c = apply(c, at + "heartbeat-interval", e.getHeartbeatInterval(), x -> x.withHeartbeatInterval(e.getHeartbeatInterval()));
        if (eager > maxMessage) {
            throw new InvalidRdmaPropertyException(at + "eager-size", e.getEagerSize(),
                    "it is larger than reactor.rdma.engine.max-message-size ("
                    + InvalidRdmaPropertyException.describe(e.getMaxMessageSize())
                            + "); lower it or raise the maximum");
        }
        if (clientEager > maxMessage) {
            throw new InvalidRdmaPropertyException(at + "client-eager-size", e.getClientEagerSize(),
                    "it is larger than reactor.rdma.engine.max-message-size ("
                    + InvalidRdmaPropertyException.describe(e.getMaxMessageSize())
                            + "); lower it or raise the maximum");
        }
        return c;
    }

    private static AllocatorConfig allocator(RdmaProperties.Allocator a) {
        String at = "reactor.rdma.allocator.";
        AllocatorConfig c = AllocatorConfig.defaults();
        int block = intBytes(at + "block-size", a.getBlockSize());
        long retained = bytes(at + "retained-bytes", a.getRetainedBytes());
        int maxAllocation = intBytes(at + "max-allocation", a.getMaxAllocation());
        int cache = intBytes(at + "thread-cache-bytes-per-class", a.getThreadCacheBytesPerClass());
        int destinationBlock = intBytes(at + "destination-block-size", a.getDestinationBlockSize());
        long destinationRetained = bytes(at + "destination-retained-bytes", a.getDestinationRetainedBytes());
        c = apply(c, at + "block-size", a.getBlockSize(), x -> x.withBlockSize(block));
        c = apply(c, at + "retained-bytes", a.getRetainedBytes(), x -> x.withRetainedBytes(retained));
        c = apply(c, at + "max-allocation", a.getMaxAllocation(), x -> x.withMaxAllocation(maxAllocation));
        c = apply(c, at + "thread-cache-bytes-per-class", a.getThreadCacheBytesPerClass(), x -> x.withThreadCacheBytesPerClass(cache));
        c = apply(c, at + "destination-block-size", a.getDestinationBlockSize(), x -> x.withDestinationBlockSize(destinationBlock));
        c = apply(c, at + "destination-retained-bytes", a.getDestinationRetainedBytes(),
                x -> x.withDestinationRetainedBytes(destinationRetained));
        return c;
    }

    /** Applies one setting; the library's own refusal (an IllegalArgumentException) becomes one naming the property. */
    private static <T> T apply(T config, String property, Object value, Function<T, T> setter) {
        try {
            return setter.apply(config);
        } catch (IllegalArgumentException e) {
            throw new InvalidRdmaPropertyException(property, value, e.getMessage());
        }
    }

    private static long bytes(String property, DataSize size) {
        if (size == null) {
            throw new InvalidRdmaPropertyException(property, null, "it must be set");
        }
        if (size.isNegative()) {
            throw new InvalidRdmaPropertyException(property, size, "a size must not be negative");
        }
        return size.toBytes();
    }

    private static int intBytes(String property, DataSize size) {
        long b = bytes(property, size);
        if (b > Integer.MAX_VALUE) {
            throw new InvalidRdmaPropertyException(property, size, "it must be below 2 GiB");
        }
        return (int) b;
    }

    /** The provider name, normalised ({@code auto}, {@code shm}, {@code loopback}, {@code soft} or {@code disni}). */
    public String provider() {
        return provider;
    }

    /** The resources' name. */
    public String name() {
        return name;
    }

    /**
     * Opens the provider and builds the resources; a provider that cannot be used here is a
     * {@link io.reactorrdma.verbs.ProviderUnavailableException} saying why.
     */
    public RdmaResources create() {
        try {
            MeterRegistry r = registry == null ? null : registry.get();
            RdmaResources created;
            try {
                created = builder.metrics(r).build();
            } catch (ProviderUnavailableException e) {
                throw inBootTerms(e);
            }
            lastFailure = null;
            LOG.info("RDMA resources '{}' on provider {}, device {} (reactor.rdma.provider={})",
                    name, created.context().providerName(), created.context().deviceName(), provider);
            return created;
        } catch (RuntimeException e) {
            lastFailure = e;
            throw e;
        }
    }

    /**
     * The provider's error as a Boot user needs it: the providers name their plain-Java system
     * properties ({@code reactor.rdma.soft.shmDir}); a Boot application sets {@code reactor.rdma.shm-directory}.
     */
    static ProviderUnavailableException inBootTerms(ProviderUnavailableException e) {
        String message = e.getMessage();
        if (message == null || !message.contains(SHM_DIR_SYSTEM_PROPERTY)) {
            return e;
        }
        return new ProviderUnavailableException(message.replace(SHM_DIR_SYSTEM_PROPERTY, "reactor.rdma.shm-directory"), e);
    }

    private static final String SHM_DIR_SYSTEM_PROPERTY = "reactor.rdma.soft.shmDir";
    private static final Logger LOG = Loggers.getLogger(RdmaResourcesFactory.class);

    /** Why the last {@link #create()} failed (the provider's error), or null when it succeeded or was not called. */
    public RuntimeException lastFailure() {
        return lastFailure;
    }
}
