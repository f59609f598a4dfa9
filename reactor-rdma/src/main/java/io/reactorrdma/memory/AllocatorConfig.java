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

    private final int blockSize;
    private final long retainedBytes;
    private final int maxAllocation;
    private final int threadCacheBytesPerClass;
    private final int threadCachePageRunBytes;

    private AllocatorConfig(int blockSize, long retainedBytes, int maxAllocation, int threadCacheBytesPerClass,
                            int threadCachePageRunBytes) {
        this.blockSize = blockSize;
        this.retainedBytes = retainedBytes;
        this.maxAllocation = maxAllocation;
        this.threadCacheBytesPerClass = threadCacheBytesPerClass;
        this.threadCachePageRunBytes = threadCachePageRunBytes;
    }

    public static AllocatorConfig defaults() {
        return new AllocatorConfig(DEFAULT_BLOCK_SIZE, DEFAULT_RETAINED_BYTES, DEFAULT_MAX_ALLOCATION, DEFAULT_THREAD_CACHE_BYTES_PER_CLASS,
                DEFAULT_THREAD_CACHE_PAGE_RUN_BYTES);
    }

    /** Block size: a multiple of 64 KiB, at least 1 MiB (so a block holds the largest size-class run, 512 KiB, twice). */
    public AllocatorConfig withBlockSize(int blockSize) {
        if (blockSize < 1024 * 1024 || blockSize % SizeClasses.RUN_GRANULE != 0) {
            throw new IllegalArgumentException("block size must be a multiple of 64 KiB and at least 1 MiB, got " + blockSize);
        }
        return new AllocatorConfig(blockSize, retainedBytes, maxAllocation, threadCacheBytesPerClass, threadCachePageRunBytes);
    }

    /** Bytes of empty blocks kept registered (hysteresis); 0 releases every block as soon as it is empty. */
    public AllocatorConfig withRetainedBytes(long retainedBytes) {
        if (retainedBytes < 0) {
            throw new IllegalArgumentException("retained bytes must be ≥ 0, got " + retainedBytes);
        }
        return new AllocatorConfig(blockSize, retainedBytes, maxAllocation, threadCacheBytesPerClass, threadCachePageRunBytes);
    }

    public AllocatorConfig withMaxAllocation(int maxAllocation) {
        if (maxAllocation < 1) {
            throw new IllegalArgumentException("max allocation must be ≥ 1, got " + maxAllocation);
        }
        return new AllocatorConfig(blockSize, retainedBytes, maxAllocation, threadCacheBytesPerClass, threadCachePageRunBytes);
    }

    public AllocatorConfig withThreadCacheBytesPerClass(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("thread cache bytes must be ≥ 0, got " + bytes);
        }
        return new AllocatorConfig(blockSize, retainedBytes, maxAllocation, bytes, threadCachePageRunBytes);
    }

    /** Bytes of freed page runs one thread may cache; 0 gives every page run straight back. */
    public AllocatorConfig withThreadCachePageRunBytes(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("thread cache page-run bytes must be ≥ 0, got " + bytes);
        }
        return new AllocatorConfig(blockSize, retainedBytes, maxAllocation, threadCacheBytesPerClass, bytes);
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

    /** Access of the pool for memory only the local NIC touches: send buffers and receive buffers. */
    static final int LOCAL_ACCESS = AccessFlags.LOCAL_WRITE;
    /** Access of the pool peers may write into: rendezvous destinations. */
    static final int REMOTE_WRITABLE_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;

    @Override
    public String toString() {
        return "AllocatorConfig{blockSize=" + blockSize + ", retainedBytes=" + retainedBytes + ", maxAllocation=" + maxAllocation
                + ", threadCacheBytesPerClass=" + threadCacheBytesPerClass + ", threadCachePageRunBytes=" + threadCachePageRunBytes + "}";
    }
}
