package io.reactorrdma.memory;

/**
 * A thread's cache of freed page runs (allocations above {@link SizeClasses#MAX_SIZE_CLASS}), so
 * that a steady mix of large buffers mostly skips the {@link BlockSource} lock. Bounded by bytes,
 * not by count: pages parked in a cache cannot merge with their neighbours, so the bound is what
 * keeps large workloads' memory near their live set.
 *
 * <p>Runs are binned by page count (a stack per count, linked through {@link Chunk#nextCached}),
 * with a bitmap of the non-empty bins. A request for n pages takes a cached run of n to n + n/8
 * pages (so a reused run wastes at most an eighth). A free that would take the cache over its
 * bound first gives back the largest runs, under one lock, until the cache is at half its bound.
 * Touched only by its thread: no atomics, no locks of its own.
 */
final class PageRunCache {

    private final long maxBytes;
    private final Chunk[] bins;
    private final BinBitmap nonEmpty;
    private long bytes;
    private int count;
    /** Scratch for a batched give-back, reused. */
    private Chunk[] evicted = new Chunk[8];

    PageRunCache(long maxBytes, int maxPages) {
        this.maxBytes = maxBytes;
        this.bins = new Chunk[maxPages + 1];
        this.nonEmpty = new BinBitmap(maxPages);
    }

    /** A cached run of {@code pages} to {@code pages + pages / 8} pages, or null. */
    Chunk take(int pages) {
        int len = nonEmpty.next(pages, pages + (pages >>> 3));
        return len < 0 ? null : pop(len);
    }

    private Chunk pop(int len) {
        Chunk c = bins[len];
        bins[len] = c.nextCached;
        if (c.nextCached == null) {
            nonEmpty.clear(len);
        }
        c.nextCached = null;
        bytes -= c.capacity;
        count--;
        return c;
    }

    /** Caches a freed run; if that would pass the bound, gives runs back to {@code source} first (or this one, if it alone is too big). */
    void put(Chunk c, BlockSource source) {
        if (c.capacity > maxBytes) {
            source.givePages(c.block, c.slot, c.capacity / SizeClasses.PAGE_SIZE);
            return;
        }
        if (bytes + c.capacity > maxBytes) {
            evictDownTo(Math.min(maxBytes / 2, maxBytes - c.capacity), source);
        }
        int len = c.capacity / SizeClasses.PAGE_SIZE;
        c.nextCached = bins[len];
        bins[len] = c;
        nonEmpty.set(len);
        bytes += c.capacity;
        count++;
    }

    /** Gives every cached run back (the owning thread is gone). */
    void flush(BlockSource source) {
        if (count > 0) {
            evictDownTo(0, source);
        }
    }

    /** Bytes of the runs cached now. */
    long bytes() {
        return bytes;
    }

    private void evictDownTo(long target, BlockSource source) {
        if (evicted.length < count) {
            evicted = new Chunk[Math.max(count, evicted.length * 2)];
        }
        int n = 0;
        while (bytes > target) {
            evicted[n++] = pop(nonEmpty.highest());
        }
        source.givePages(evicted, 0, n);
    }
}
