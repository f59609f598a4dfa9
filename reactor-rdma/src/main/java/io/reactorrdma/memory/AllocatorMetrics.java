package io.reactorrdma.memory;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Micrometer meters of a {@link RegisteredAllocator}, tagged with the pool ({@code local},
 * {@code remote-writable}) and any tags given: gauges {@code rdma.memory.registered.bytes},
 * {@code rdma.memory.registered.peak.bytes}, {@code rdma.memory.blocks}, {@code rdma.memory.live.buffers},
 * {@code rdma.memory.live.bytes}; counters {@code rdma.memory.registrations},
 * {@code rdma.memory.deregistrations}. The engines' destination pools are added up under
 * {@code pool=destinations} (no peak gauge: a sum of peaks would mean nothing).
 */
public final class AllocatorMetrics implements MeterBinder {

    private final RegisteredAllocator allocator;
    private final Tags tags;

    public AllocatorMetrics(RegisteredAllocator allocator, Tags tags) {
        this.allocator = allocator;
        this.tags = tags;
    }

    public AllocatorMetrics(RegisteredAllocator allocator) {
        this(allocator, Tags.empty());
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        bind(registry, allocator.local());
        bind(registry, allocator.remoteWritable());
        Tags t = tags.and("pool", "destinations");
        Gauge.builder("rdma.memory.registered.bytes", allocator, a -> a.destinationStatistics().registeredBytes()).tags(t)
                .baseUnit("bytes").description("Bytes registered with the RDMA provider").register(registry);
        Gauge.builder("rdma.memory.blocks", allocator, a -> a.destinationStatistics().blocks()).tags(t)
                .description("Registered blocks held").register(registry);
        Gauge.builder("rdma.memory.live.buffers", allocator, a -> a.destinationStatistics().liveBuffers()).tags(t)
                .description("Allocations not yet released").register(registry);
        Gauge.builder("rdma.memory.live.bytes", allocator, a -> a.destinationStatistics().liveBytes()).tags(t)
                .baseUnit("bytes").description("Bytes of allocations not yet released").register(registry);
        FunctionCounter.builder("rdma.memory.registrations", allocator, a -> a.destinationStatistics().registrations()).tags(t)
                .description("Regions registered").register(registry);
        FunctionCounter.builder("rdma.memory.deregistrations", allocator, a -> a.destinationStatistics().deregistrations()).tags(t)
                .description("Regions deregistered").register(registry);
    }

    private void bind(MeterRegistry registry, RegisteredPool pool) {
        Tags t = tags.and("pool", pool.name());
        Gauge.builder("rdma.memory.registered.bytes", pool, p -> p.statistics().registeredBytes()).tags(t)
                .baseUnit("bytes").description("Bytes registered with the RDMA provider").register(registry);
        Gauge.builder("rdma.memory.registered.peak.bytes", pool, p -> p.statistics().peakRegisteredBytes()).tags(t)
                .baseUnit("bytes").description("Most bytes registered at once").register(registry);
        Gauge.builder("rdma.memory.blocks", pool, p -> p.statistics().blocks()).tags(t)
                .description("Registered blocks held").register(registry);
        Gauge.builder("rdma.memory.live.buffers", pool, p -> p.statistics().liveBuffers()).tags(t)
                .description("Allocations not yet released").register(registry);
        Gauge.builder("rdma.memory.live.bytes", pool, p -> p.statistics().liveBytes()).tags(t)
                .baseUnit("bytes").description("Bytes of allocations not yet released").register(registry);
        FunctionCounter.builder("rdma.memory.registrations", pool, p -> p.statistics().registrations()).tags(t)
                .description("Regions registered").register(registry);
        FunctionCounter.builder("rdma.memory.deregistrations", pool, p -> p.statistics().deregistrations()).tags(t)
                .description("Regions deregistered").register(registry);
    }
}
