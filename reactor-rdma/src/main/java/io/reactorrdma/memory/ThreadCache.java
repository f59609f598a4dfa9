package io.reactorrdma.memory;

import java.lang.ref.Cleaner;

/**
 * A thread's stacks of free slots, one per size class: an allocation pops, a free pushes — from
 * whichever thread frees, so memory moves with the buffers (the receive path frees on application
 * threads). Full stacks flush half to the class's pool; empty ones refill half. Page runs (sizes
 * above the classes) have their own bounded cache, {@link #pageRuns}. Touched only by its thread:
 * no atomics, no locks.
 *
 * <p>When the thread dies its {@code ThreadLocal} map goes, this object becomes unreachable, and a
 * {@link Cleaner} gives what it held back to the pools ({@link Flush}, which holds the stacks but
 * not this object) — as Netty's {@code PoolThreadCache} does — so short-lived threads (connect
 * executors, {@code boundedElastic}) do not strand registered memory. The hot path is unchanged.
 */
final class ThreadCache {

    /** One daemon thread for the whole JVM, idle but for dying threads' caches. */
    private static final Cleaner CLEANER = Cleaner.create(r -> {
        Thread t = new Thread(r, "reactor-rdma-thread-cache-cleaner");
        t.setDaemon(true);
        return t;
    });

    private final Chunk[][] stacks = new Chunk[SizeClasses.COUNT][];
    private final int[] counts = new int[SizeClasses.COUNT];
    private final int bytesPerClass;
    /** This thread's freed page runs. */
    final PageRunCache pageRuns;

    ThreadCache(int bytesPerClass, long pageRunBytes, int blockPages) {
        this.bytesPerClass = bytesPerClass;
        this.pageRuns = new PageRunCache(pageRunBytes, blockPages);
    }

    /**
     * A cache for the calling thread whose contents go back to {@code pools} and {@code source}
     * once the cache is unreachable (its thread died), or are dropped if the pool closed first.
     */
    static ThreadCache register(RegisteredPool pool, SizeClassPool[] pools, BlockSource source, int bytesPerClass, long pageRunBytes,
                                int blockPages) {
        ThreadCache cache = new ThreadCache(bytesPerClass, pageRunBytes, blockPages);
        Flush flush = new Flush(pool, pools, source, cache.stacks, cache.counts, cache.pageRuns);
        flush.cleanable = CLEANER.register(cache, flush);
        pool.tracked(flush.cleanable, true);
        return cache;
    }

    /** Gives a dead thread's cached chunks back: runs on the cleaner thread, or at pool close (then drops them). */
    private static final class Flush implements Runnable {
        private final RegisteredPool pool;
        private final SizeClassPool[] pools;
        private final BlockSource source;
        private final Chunk[][] stacks;
        private final int[] counts;
        private final PageRunCache pageRuns;
        Cleaner.Cleanable cleanable;

        Flush(RegisteredPool pool, SizeClassPool[] pools, BlockSource source, Chunk[][] stacks, int[] counts, PageRunCache pageRuns) {
            this.pool = pool;
            this.pools = pools;
            this.source = source;
            this.stacks = stacks;
            this.counts = counts;
            this.pageRuns = pageRuns;
        }

        @Override
        public void run() {
            pool.tracked(cleanable, false);
            if (pool.isClosed()) {
                return; // the blocks are released (or will be with the last live buffer); nothing to give back
            }
            for (int c = 0; c < counts.length; c++) {
                if (counts[c] > 0) {
                    pools[c].giveBack(stacks[c], 0, counts[c]);
                    counts[c] = 0;
                }
            }
            pageRuns.flush(source);
        }
    }

    Chunk pop(int sizeClass, SizeClassPool pool) {
        int n = counts[sizeClass];
        Chunk[] stack = stacks[sizeClass];
        if (n == 0) {
            if (stack == null) {
                stack = stacks[sizeClass] = new Chunk[SizeClasses.threadCacheSlots(sizeClass, bytesPerClass)];
            }
            n = pool.refill(stack, 0, Math.max(1, stack.length / 2));
        }
        Chunk c = stack[--n];
        stack[n] = null;
        counts[sizeClass] = n;
        return c;
    }

    void push(Chunk c, SizeClassPool pool) {
        int sizeClass = c.sizeClass;
        Chunk[] stack = stacks[sizeClass];
        if (stack == null) {
            stack = stacks[sizeClass] = new Chunk[SizeClasses.threadCacheSlots(sizeClass, bytesPerClass)];
        }
        int n = counts[sizeClass];
        if (n == stack.length) {
            int keep = stack.length / 2; // 0 for a one-slot stack: everything goes back
            pool.giveBack(stack, keep, n - keep);
            n = keep;
        }
        stack[n++] = c;
        counts[sizeClass] = n;
    }
}
