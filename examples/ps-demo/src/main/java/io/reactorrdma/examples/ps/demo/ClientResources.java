package io.reactorrdma.examples.ps.demo;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.SoftConfig;

import java.nio.file.Path;
import java.util.ArrayList;

/**
 * The {@link RdmaResources} of the demo JVM (the client side of every RDMA arm): one I/O thread
 * ({@link #DEFAULT_THREADS}, the host has 2 cores and the shards need theirs), the run's provider
 * and shm directory, and every meter published to the run's registry under
 * {@code resources=<name>}, so that the registered-memory sampler sees all of them. Closing one
 * disposes it, checks that its allocator holds no live buffer, and removes its meters.
 */
final class ClientResources implements AutoCloseable {

    /** I/O threads of each of the demo JVM's resources: 1. */
    static final int DEFAULT_THREADS = 1;
    /** The I/O thread sleeps when idle (as the shards' do): a 2-core host runs this JVM and every shard. */
    static final IdleStrategy DEFAULT_IDLE = IdleStrategy.BLOCK;

    private final RdmaResources resources;
    private final MeterRegistry registry;

    private ClientResources(RdmaResources resources, MeterRegistry registry) {
        this.resources = resources;
        this.registry = registry;
    }

    /** Resources named {@code name} with the engine settings {@code engine}. */
    static ClientResources create(String name, String provider, Path shmDir, EngineConfig engine, MeterRegistry registry) {
        RdmaResources.Builder b = RdmaResources.builder(name).provider(provider).threads(DEFAULT_THREADS).idle(DEFAULT_IDLE)
                .engine(engine).metrics(registry);
        if (shmDir != null) {
            b.softConfig(SoftConfig.fromSystemProperties().withShmDirectory(shmDir));
        }
        return new ClientResources(b.build(), registry);
    }

    RdmaResources resources() {
        return resources;
    }

    /** Disposes the resources; throws when a buffer was not released (a leak in the demo or the applications). */
    @Override
    public void close() {
        resources.dispose();
        for (Meter m : new ArrayList<>(registry.getMeters())) {
            if (resources.name().equals(m.getId().getTag("resources"))) {
                registry.remove(m);
            }
        }
        long live = resources.statistics().liveBuffers();
        if (live != 0) {
            throw new IllegalStateException("the demo's registered allocator '" + resources.name() + "' still holds " + live
                    + " buffers after its arm: a payload was not released (run with -Dio.netty.leakDetection.level=paranoid)");
        }
    }
}
