package io.reactorrdma.memory;

import io.reactorrdma.verbs.MemoryRegion;

import java.nio.ByteBuffer;

/**
 * One registered block from the provider, divided into {@link SizeClasses#PAGE_SIZE} pages. Which
 * pages are taken is a bitmap (64 per long; it catches a double free), and the free extents'
 * first and last pages point at their {@link PageHeap.Extent}s. Guarded by the {@link BlockSource} lock.
 */
final class Block {

    final MemoryRegion region;
    /** The whole block's memory (native order), sliced for allocations. */
    final ByteBuffer memory;
    final int pages;
    private final long[] used;
    private int usedPages;
    /** Whether the block came from the provider for a single huge allocation (then it has no pages). */
    final boolean dedicated;
    /** The free extent starting at each page, or null: kept by {@link PageHeap}. */
    final PageHeap.Extent[] freeAt;
    /** The free extent ending at each page, or null: kept by {@link PageHeap}. */
    final PageHeap.Extent[] freeEnding;
    /** Whether the block is on {@link BlockSource}'s list of retained empty blocks. */
    boolean retainedEmpty;

    Block(MemoryRegion region, boolean dedicated) {
        this.region = region;
        this.memory = region.buffer().order(java.nio.ByteOrder.nativeOrder());
        this.dedicated = dedicated;
        this.pages = dedicated ? 0 : region.length() / SizeClasses.PAGE_SIZE;
        this.used = new long[(pages + 63) / 64];
        this.freeAt = new PageHeap.Extent[pages];
        this.freeEnding = new PageHeap.Extent[pages];
    }

    /** Marks pages [first, first + n) taken; they must all be free (checked before anything changes). */
    void markUsed(int first, int n) {
        if (!all(first, n, false)) {
            throw new IllegalStateException("pages " + first + ".." + (first + n - 1) + " of block " + region + " are not all free");
        }
        set(first, n, true);
        usedPages += n;
    }

    /** Marks pages [first, first + n) free; they must all be taken (checked before anything changes). */
    void markFree(int first, int n) {
        if (!all(first, n, true)) {
            throw new IllegalStateException("pages " + first + ".." + (first + n - 1) + " of block " + region + " are already free");
        }
        set(first, n, false);
        usedPages -= n;
    }

    private boolean all(int first, int n, boolean taken) {
        for (int q = first, end = first + n; q < end; ) {
            int w = q >>> 6;
            int to = Math.min(end, (w + 1) << 6);
            long mask = rangeMask(q, to);
            if ((used[w] & mask) != (taken ? mask : 0)) {
                return false;
            }
            q = to;
        }
        return true;
    }

    private void set(int first, int n, boolean taken) {
        for (int q = first, end = first + n; q < end; ) {
            int w = q >>> 6;
            int to = Math.min(end, (w + 1) << 6);
            long mask = rangeMask(q, to);
            used[w] = taken ? used[w] | mask : used[w] & ~mask;
            q = to;
        }
    }

    /** Bits [from, to) of the word holding page {@code from} (to ≤ the word's end). */
    private static long rangeMask(int from, int to) {
        int bits = to - from;
        long ones = bits == 64 ? -1L : (1L << bits) - 1;
        return ones << (from & 63);
    }

    boolean isEmpty() {
        return usedPages == 0;
    }
}
