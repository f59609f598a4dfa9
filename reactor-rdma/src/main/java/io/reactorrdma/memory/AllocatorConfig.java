package io.reactorrdma.memory;

import io.reactorrdma.verbs.AccessFlags;

/**
 * The registered allocator's tunables, each declared once with its default and why. Immutable;
 * each {@code with…} returns a copy.
 */
public final class AllocatorConfig {

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
     * Block size of an engine's own rendezvous-destination pool ({@link RegisteredAllocator#openDestinationPool}):
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

    private final int blockSize;
    private final long retainedBytes;
    private final int maxAllocation;
    private final int threadCacheBytesPerClass;
    private final int threadCachePageRunBytes;
    private final int destinationBlockSize;
    private final long destinationRetainedBytes;

    private AllocatorConfig(int blockSize, long retainedBytes, int maxAllocation, int threadCacheBytesPerClass,
                            int threadCachePageRunBytes, int destinationBlockSize, long destinationRetainedBytes) {
        this.blockSize = blockSize;
        this.retainedBytes = retainedBytes;
        this.maxAllocation = maxAllocation;
        this.threadCacheBytesPerClass = threadCacheBytesPerClass;
        this.threadCachePageRunBytes = threadCachePageRunBytes;
        this.destinationBlockSize = destinationBlockSize;
        this.destinationRetainedBytes = destinationRetainedBytes;
    }

    public static AllocatorConfig defaults() {
        return new AllocatorConfig(DEFAULT_BLOCK_SIZE, DEFAULT_RETAINED_BYTES, DEFAULT_MAX_ALLOCATION, DEFAULT_THREAD_CACHE_BYTES_PER_CLASS,
                DEFAULT_THREAD_CACHE_PAGE_RUN_BYTES, DEFAULT_DESTINATION_BLOCK_SIZE, DEFAULT_DESTINATION_RETAINED_BYTES);
    }

    /** Block size: a multiple of 64 KiB, at least 1 MiB (so a block holds the largest size-class run, 512 KiB, twice). */
    public AllocatorConfig withBlockSize(int blockSize) {
        checkBlockSize(blockSize, "block size");
        return new AllocatorConfig(blockSize, retainedBytes, maxAllocation, threadCacheBytesPerClass, threadCachePageRunBytes,
                destinationBlockSize, destinationRetainedBytes);
    }

    /** Bytes of empty blocks kept registered (hysteresis); 0 releases every block as soon as it is empty. */
    public AllocatorConfig withRetainedBytes(long retainedBytes) {
        if (retainedBytes < 0) {
            throw new IllegalArgumentException("retained bytes must be ≥ 0, got " + retainedBytes);
        }
        return new AllocatorConfig(blockSize, retainedBytes, maxAllocation, threadCacheBytesPerClass, threadCachePageRunBytes,
                destinationBlockSize, destinationRetainedBytes);
    }

    public AllocatorConfig withMaxAllocation(int maxAllocation) {
        if (maxAllocation < 1) {
            throw new IllegalArgumentException("max allocation must be ≥ 1, got " + maxAllocation);
        }
        return new AllocatorConfig(blockSize, retainedBytes, maxAllocation, threadCacheBytesPerClass, threadCachePageRunBytes,
                destinationBlockSize, destinationRetainedBytes);
    }

    public AllocatorConfig withThreadCacheBytesPerClass(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("thread cache bytes must be ≥ 0, got " + bytes);
        }
        return new AllocatorConfig(blockSize, retainedBytes, maxAllocation, bytes, threadCachePageRunBytes, destinationBlockSize,
                destinationRetainedBytes);
    }

    /** Bytes of freed page runs one thread may cache; 0 gives every page run straight back. */
    public AllocatorConfig withThreadCachePageRunBytes(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("thread cache page-run bytes must be ≥ 0, got " + bytes);
        }
        return new AllocatorConfig(blockSize, retainedBytes, maxAllocation, threadCacheBytesPerClass, bytes, destinationBlockSize,
                destinationRetainedBytes);
    }

    /** Block size of each engine's rendezvous-destination pool: a multiple of 64 KiB, at least 1 MiB. */
    public AllocatorConfig withDestinationBlockSize(int bytes) {
        checkBlockSize(bytes, "destination block size");
        return new AllocatorConfig(blockSize, retainedBytes, maxAllocation, threadCacheBytesPerClass, threadCachePageRunBytes, bytes,
                destinationRetainedBytes);
    }

    /**
     * Bytes of empty destination blocks each idle engine keeps registered; blocks beyond it go at the
     * engine's second trim (heartbeat interval) after they emptied, if not used again meanwhile; with 0
     * every block goes then.
     */
    public AllocatorConfig withDestinationRetainedBytes(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("destination retained bytes must be ≥ 0, got " + bytes);
        }
        return new AllocatorConfig(blockSize, retainedBytes, maxAllocation, threadCacheBytesPerClass, threadCachePageRunBytes,
                destinationBlockSize, bytes);
    }

    private static void checkBlockSize(int bytes, String what) {
        if (bytes < 1024 * 1024 || bytes % SizeClasses.RUN_GRANULE != 0) {
            throw new IllegalArgumentException(what + " must be a multiple of 64 KiB and at least 1 MiB, got " + bytes);
        }
    }

    public int blockSize() {
        return blockSize;
    }

    public long retainedBytes() {
        return retainedBytes;
    }

    public int maxAllocation() {
        return maxAllocation;
    }

    public int threadCacheBytesPerClass() {
        return threadCacheBytesPerClass;
    }

    public int threadCachePageRunBytes() {
        return threadCachePageRunBytes;
    }

    public int destinationBlockSize() {
        return destinationBlockSize;
    }

    public long destinationRetainedBytes() {
        return destinationRetainedBytes;
    }

    /** The configuration of one engine's destination pool: its block size and retained bytes as blocks. */
    AllocatorConfig forDestinations() {
        return new AllocatorConfig(destinationBlockSize, destinationRetainedBytes, maxAllocation, 0, 0, destinationBlockSize,
                destinationRetainedBytes);
    }

    /** Access of the pool for memory only the local NIC touches: send buffers and receive buffers. */
    static final int LOCAL_ACCESS = AccessFlags.LOCAL_WRITE;
    /** Access of the pool peers may write into: rendezvous destinations. */
    static final int REMOTE_WRITABLE_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;
    /** Access of a pool one peer may READ from: pull-rendezvous sources (never remote-writable). */
    static final int REMOTE_READABLE_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ;

    @Override
    public String toString() {
        return "AllocatorConfig{blockSize=" + blockSize + ", retainedBytes=" + retainedBytes + ", maxAllocation=" + maxAllocation
                + ", threadCacheBytesPerClass=" + threadCacheBytesPerClass + ", threadCachePageRunBytes=" + threadCachePageRunBytes + ", destinationBlockSize=" + destinationBlockSize
                + ", destinationRetainedBytes=" + destinationRetainedBytes + "}";
    }
}
