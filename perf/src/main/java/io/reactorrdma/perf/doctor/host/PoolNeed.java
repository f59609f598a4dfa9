package io.reactorrdma.perf.doctor.host;

import io.reactorrdma.config.AllocatorConfig;
import io.reactorrdma.config.EngineConfig;

/**
 * The memory the default configuration registers (pins on hardware, maps under /dev/shm on shm), from the public
 * configuration records: the allocator's pool (one block in use and the empty blocks it keeps), and per connection a
 * receive ring and a rendezvous-destination block. While large messages arrive an engine holds up to
 * {@link EngineConfig#DEFAULT_MAX_PINNED_DESTINATION_BYTES} more.
 *
 * @param pool          the registered pool of one process: a block in use plus the retained empty blocks
 * @param perClient     per connection this process opened: its receive ring (client eager size) and a destination block
 * @param perServer     per connection this process accepted: its receive ring (eager size) and a destination block
 * @param largeMessages per connection while large messages arrive: the bound on rendezvous destinations it holds
 */
public record PoolNeed(long pool, long perClient, long perServer, long largeMessages) {

    /** The defaults of {@link AllocatorConfig} and {@link EngineConfig}. */
    public static PoolNeed defaults() {
        AllocatorConfig a = AllocatorConfig.defaults();
        EngineConfig e = EngineConfig.defaults();
        return new PoolNeed(a.blockSize() + a.retainedBytes(),
                (long) e.recvQueueDepth() * e.clientEagerSize() + a.destinationRetainedBytes(),
                (long) e.recvQueueDepth() * e.eagerSize() + a.destinationRetainedBytes(),
                e.maxPinnedDestinationBytes());
    }

    /** What a process with one connection of each kind registers at rest. */
    public long oneConnection() {
        return pool + Math.max(perClient, perServer);
    }

    /** The sentence the report shows. */
    public String shown() {
        return "the default pools register about " + Bytes.shown(oneConnection()) + " for one connection, "
                + Bytes.shown(perClient) + " more per further client connection (" + Bytes.shown(perServer)
                + " per accepted one), up to " + Bytes.shown(largeMessages) + " more per connection while large messages arrive";
    }
}
