package io.reactorrdma.memory;

import io.reactorrdma.verbs.MemoryRegion;

import java.nio.ByteBuffer;

/**
 * One registered block from the provider, divided into pages. Which pages are taken is a bitmap
 * (64 bits per long); guarded by the {@link BlockSource} lock.
 */
final class Block {

    final MemoryRegion region;
    /** The whole block's memory (native order), sliced for allocations. */
    final ByteBuffer memory;
    final int pages;
    private final long[] used;
    private int usedPages;
    /** Whether the block came from the provider for a single huge allocation. */
    final boolean dedicated;

    Block(MemoryRegion region, boolean dedicated) {
        this.region = region;
        this.memory = region.buffer().order(java.nio.ByteOrder.nativeOrder());
        this.dedicated = dedicated;
        this.pages = dedicated ? 1 : region.length() / SizeClasses.PAGE_SIZE;
        this.used = new long[(pages + 63) / 64];
    }

    /** Takes {@code n} contiguous free pages; returns the first page or -1. */
    int takePages(int n) {
        int run = 0;
        for (int p = 0; p < pages; p++) {
            if ((used[p >>> 6] & (1L << p)) != 0) {
                run = 0;
                continue;
            }
            if (++run == n) {
                int first = p - n + 1;
                for (int q = first; q <= p; q++) used[q >>> 6] |= 1L << q;
                usedPages += n;
                return first;
            }
        }
        return -1;
    }

    void givePages(int first, int n) {
        for (int q = first; q < first + n; q++) {
            long bit = 1L << q;
            if ((used[q >>> 6] & bit) == 0) {
                throw new IllegalStateException("page " + q + " of block " + region + " is already free");
            }
            used[q >>> 6] &= ~bit;
        }
        usedPages -= n;
    }

    boolean isEmpty() {
        return usedPages == 0;
    }

    int freePages() {
        return pages - usedPages;
    }
}
