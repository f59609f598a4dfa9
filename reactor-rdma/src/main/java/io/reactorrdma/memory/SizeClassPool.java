package io.reactorrdma.memory;

import java.util.ArrayDeque;

/**
 * The central store of one size class: runs with free slots. Thread caches refill from it and
 * flush to it in batches, so its lock is taken once per batch, not per allocation; there is one
 * pool (and one lock) per class, never one for the whole allocator.
 */
final class SizeClassPool {

    private final RegisteredPool owner;
    private final BlockSource source;
    private final int sizeClass;
    private final int runPages;
    private final ArrayDeque<Run> runsWithFreeSlots = new ArrayDeque<>();
    private final int[] firstPage = new int[1];

    SizeClassPool(RegisteredPool owner, BlockSource source, int sizeClass) {
        this.owner = owner;
        this.source = source;
        this.sizeClass = sizeClass;
        this.runPages = Math.min(SizeClasses.runPages(sizeClass), source.blockPages());
    }

    /** Moves up to {@code max} free slots into {@code into[at..]}; carves a new run when none has room. */
    synchronized int refill(Chunk[] into, int at, int max) {
        int n = 0;
        while (n < max) {
            Run r = runsWithFreeSlots.peekFirst();
            if (r == null) {
                Block b = source.takePages(runPages, firstPage);
                r = new Run(owner, b, firstPage[0], runPages, sizeClass);
                r.listed = true;
                runsWithFreeSlots.addFirst(r);
            }
            while (n < max && r.hasFree()) {
                into[at + n++] = r.take();
            }
            if (!r.hasFree()) {
                runsWithFreeSlots.pollFirst();
                r.listed = false;
            }
        }
        return n;
    }

    /** Takes back {@code count} slots; a run whose slots are all back returns its pages (one empty run stays). */
    synchronized void giveBack(Chunk[] from, int at, int count) {
        for (int i = at; i < at + count; i++) {
            Chunk c = from[i];
            from[i] = null;
            Run r = c.run;
            r.give(c);
            if (!r.listed) {
                r.listed = true;
                runsWithFreeSlots.addLast(r);
            }
            if (r.isEmpty() && runsWithFreeSlots.size() > 1) {
                runsWithFreeSlots.remove(r);
                r.listed = false;
                source.givePages(r.block, r.firstPage, r.pages);
            }
        }
    }
}
