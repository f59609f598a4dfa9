package io.reactorrdma.memory;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.function.Function;

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
        bind(registry, allocator.local().name(), allocator.local(), RegisteredPool::statistics, true);
        bind(registry, allocator.remoteWritable().name(), allocator.remoteWritable(), RegisteredPool::statistics, true);
        bind(registry, allocator.remoteReadable().name(), allocator.remoteReadable(), RegisteredPool::statistics, true);
        bind(registry, "destinations", allocator, RegisteredAllocator::destinationStatistics, false);
    }

    /** The meters of one pool, or of the destination pools added up (without a peak gauge). */
    private <T> void bind(MeterRegistry registry, String pool, T source, Function<T, AllocatorStatistics> statistics, boolean peak) {
        Tags t = tags.and("pool", pool);
        Gauge.builder("rdma.memory.registered.bytes", source, s -> statistics.apply(s).registeredBytes()).tags(t)
                .baseUnit("bytes").description("Bytes registered with the RDMA provider").register(registry);
        if (peak) {
            Gauge.builder("rdma.memory.registered.peak.bytes", source, s -> statistics.apply(s).peakRegisteredBytes()).tags(t)
                    .baseUnit("bytes").description("Most bytes registered at once").register(registry);
        }
        Gauge.builder("rdma.memory.blocks", source, s -> statistics.apply(s).blocks()).tags(t)
                .description("Registered blocks held").register(registry);
        Gauge.builder("rdma.memory.live.buffers", source, s -> statistics.apply(s).liveBuffers()).tags(t)
                .description("Allocations not yet released").register(registry);
        Gauge.builder("rdma.memory.live.bytes", source, s -> statistics.apply(s).liveBytes()).tags(t)
                .baseUnit("bytes").description("Bytes of allocations not yet released").register(registry);
        FunctionCounter.builder("rdma.memory.registrations", source, s -> statistics.apply(s).registrations()).tags(t)
                .description("Regions registered").register(registry);
        FunctionCounter.builder("rdma.memory.deregistrations", source, s -> statistics.apply(s).deregistrations()).tags(t)
                .description("Regions deregistered").register(registry);
    }
}
