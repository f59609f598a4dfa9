package io.reactorrdma.config;

/**
 * The registered allocator's tunables, each declared once with its default and why. Immutable,
 * checked where it is made (the canonical constructor); start from {@link #defaults()}, and each
 * {@code with…} returns a copy with one value changed.
 *
 * @param blockSize                 bytes of one registered block: a multiple of 64 KiB, at least 1 MiB
 *                                  (so a block holds the largest size-class run, 512 KiB, twice)
 * @param retainedBytes             bytes of empty blocks kept registered (hysteresis); 0 releases every
 *                                  block as soon as it is empty
 * @param maxAllocation             largest single allocation
 * @param threadCacheBytesPerClass  bytes a thread may cache per size class; 0 caches nothing
 * @param threadCachePageRunBytes   bytes of freed page runs one thread may cache; 0 gives every page run straight back
 * @param destinationBlockSize      block size of each engine's rendezvous-destination pool: a multiple of 64 KiB, at least 1 MiB
 * @param destinationRetainedBytes  bytes of empty destination blocks each idle engine keeps registered
 */
public record AllocatorConfig(int blockSize,
                              long retainedBytes,
                              int maxAllocation,
                              int threadCacheBytesPerClass,
                              int threadCachePageRunBytes,
                              int destinationBlockSize,
                              long destinationRetainedBytes) {

    /** 4 MiB blocks: one registration covers many buffers, and a block is small enough to give back. */
    public static final int DEFAULT_BLOCK_SIZE = 4 * 1024 * 1024;
    /** Empty blocks kept registered before any is released: four blocks ride out bursts without re-registering. */
    public static final long DEFAULT_RETAINED_BYTES = 4L * DEFAULT_BLOCK_SIZE;
    /** Largest single allocation; larger requests are refused (the provider's regions stop at 1 GiB). */
    public static final int DEFAULT_MAX_ALLOCATION = 1 << 30;
    /** Bytes a thread may cache per size class (at most 64 slots): enough to absorb bursts, bounded per thread. */
    public static final int DEFAULT_THREAD_CACHE_BYTES_PER_CLASS = 256 * 1024;
    /**
     * Bytes of freed page runs (allocations above 64 KiB) a thread may cache, all sizes together:
     * a few large buffers' worth, so a steady large workload mostly skips the shared lock, while
     * pages parked in caches (which cannot merge with their free neighbours) stay few.
     */
    public static final int DEFAULT_THREAD_CACHE_PAGE_RUN_BYTES = 1024 * 1024;
    /**
     * Block size of an engine's own rendezvous-destination pool ({@code RegisteredAllocator.openDestinationPool}):
     * each engine registers its own blocks, so that the rkey one peer gets covers no other peer's
     * buffers. 2 MiB holds a 1 MiB message with its frame header (RSocket) in one block; larger
     * destinations get a region of their own, registered for that message only.
     */
    public static final int DEFAULT_DESTINATION_BLOCK_SIZE = 2 * 1024 * 1024;
    /**
     * Empty destination blocks an idle engine keeps registered: one, so an idle connection holds at
     * most one block beyond its live destinations (an engine that never receives a rendezvous
     * message registers nothing). While messages come, empty blocks beyond it are kept too: the
     * engine releases one only when it has stayed empty from one trim to the next (trims run every
     * {@code EngineConfig.heartbeatInterval()}, default 1 s), so several large messages in flight
     * register nothing per message, and the bound holds again by the second trim after the last.
     */
    public static final long DEFAULT_DESTINATION_RETAINED_BYTES = DEFAULT_DESTINATION_BLOCK_SIZE;

    /** The unit blocks are cut in: a block size is a multiple of it. */
    private static final int BLOCK_GRANULE = 64 * 1024;

    public AllocatorConfig {
        checkBlockSize(blockSize, "block size");
        if (retainedBytes < 0) {
            throw new IllegalArgumentException("retained bytes must be ≥ 0, got " + retainedBytes);
        }
        if (maxAllocation < 1) {
            throw new IllegalArgumentException("max allocation must be ≥ 1, got " + maxAllocation);
        }
        if (threadCacheBytesPerClass < 0) {
            throw new IllegalArgumentException("thread cache bytes must be ≥ 0, got " + threadCacheBytesPerClass);
        }
        if (threadCachePageRunBytes < 0) {
            throw new IllegalArgumentException("thread cache page-run bytes must be ≥ 0, got " + threadCachePageRunBytes);
        }
        checkBlockSize(destinationBlockSize, "destination block size");
        if (destinationRetainedBytes < 0) {
            throw new IllegalArgumentException("destination retained bytes must be ≥ 0, got " + destinationRetainedBytes);
        }
    }

    private static void checkBlockSize(int bytes, String what) {
        if (bytes < 1024 * 1024 || bytes % BLOCK_GRANULE != 0) {
            throw new IllegalArgumentException(what + " must be a multiple of 64 KiB and at least 1 MiB, got " + bytes);
        }
    }

    public static AllocatorConfig defaults() {
        return new AllocatorConfig(DEFAULT_BLOCK_SIZE, DEFAULT_RETAINED_BYTES, DEFAULT_MAX_ALLOCATION, DEFAULT_THREAD_CACHE_BYTES_PER_CLASS,
                DEFAULT_THREAD_CACHE_PAGE_RUN_BYTES, DEFAULT_DESTINATION_BLOCK_SIZE, DEFAULT_DESTINATION_RETAINED_BYTES);
    }

    /** See {@link #blockSize()}. */
    public AllocatorConfig withBlockSize(int blockSize) {
        return new AllocatorConfig(blockSize, retainedBytes, maxAllocation, threadCacheBytesPerClass, threadCachePageRunBytes,
                destinationBlockSize, destinationRetainedBytes);
    }

    /** See {@link #retainedBytes()}. */
    public AllocatorConfig withRetainedBytes(long retainedBytes) {
        return new AllocatorConfig(blockSize, retainedBytes, maxAllocation, threadCacheBytesPerClass, threadCachePageRunBytes,
                destinationBlockSize, destinationRetainedBytes);
    }

    /** See {@link #maxAllocation()}. */
    public AllocatorConfig withMaxAllocation(int maxAllocation) {
        return new AllocatorConfig(blockSize, retainedBytes, maxAllocation, threadCacheBytesPerClass, threadCachePageRunBytes,
                destinationBlockSize, destinationRetainedBytes);
    }

    /** See {@link #threadCacheBytesPerClass()}. */
    public AllocatorConfig withThreadCacheBytesPerClass(int bytes) {
        return new AllocatorConfig(blockSize, retainedBytes, maxAllocation, bytes, threadCachePageRunBytes, destinationBlockSize,
                destinationRetainedBytes);
    }

    /** See {@link #threadCachePageRunBytes()}. */
    public AllocatorConfig withThreadCachePageRunBytes(int bytes) {
        return new AllocatorConfig(blockSize, retainedBytes, maxAllocation, threadCacheBytesPerClass, bytes, destinationBlockSize,
                destinationRetainedBytes);
    }

    /** See {@link #destinationBlockSize()}. */
    public AllocatorConfig withDestinationBlockSize(int bytes) {
        return new AllocatorConfig(blockSize, retainedBytes, maxAllocation, threadCacheBytesPerClass, threadCachePageRunBytes, bytes,
                destinationRetainedBytes);
    }

    /**
     * Bytes of empty destination blocks each idle engine keeps registered; blocks beyond it go at the
     * engine's second trim (heartbeat interval) after they emptied, if not used again meanwhile; with 0
     * every block goes then.
     */
    public AllocatorConfig withDestinationRetainedBytes(long bytes) {
        return new AllocatorConfig(blockSize, retainedBytes, maxAllocation, threadCacheBytesPerClass, threadCachePageRunBytes,
                destinationBlockSize, bytes);
    }

    /** The configuration of one engine's destination pool: its block size and retained bytes as blocks, no thread caches. */
    public AllocatorConfig forDestinations() {
        return new AllocatorConfig(destinationBlockSize, destinationRetainedBytes, maxAllocation, 0, 0, destinationBlockSize,
                destinationRetainedBytes);
    }
}
