package io.reactorrdma.memory;

/**
 * A thread's stacks of free slots, one per size class: an allocation pops, a free pushes — from
 * whichever thread frees, so memory moves with the buffers (the receive path frees on application
 * threads). Full stacks flush half to the class's pool; empty ones refill half. Page runs (sizes
 * above the classes) have their own bounded cache, {@link #pageRuns}. Touched only by its thread:
 * no atomics, no locks.
 */
final class ThreadCache {

    private final Chunk[][] stacks = new Chunk[SizeClasses.COUNT][];
    private final int[] counts = new int[SizeClasses.COUNT];
    private final int bytesPerClass;
    /** This thread's freed page runs. */
    final PageRunCache pageRuns;

    ThreadCache(int bytesPerClass, long pageRunBytes, int blockPages) {
        this.bytesPerClass = bytesPerClass;
        this.pageRuns = new PageRunCache(pageRunBytes, blockPages);
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
