package io.reactorrdma.memory;

import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.VerbsException;

import java.util.ArrayList;
import java.util.List;

/**
 * Where blocks come from and go back to: the provider registers a block when it is acquired and
 * deregisters it when it is released; empty blocks are kept (hysteresis) while the retained bytes
 * stay within the configured bound, so a steady workload registers nothing after warm-up.
 * A <em>trimmed</em> source (an engine's destination pool) keeps every empty block until its
 * owner's {@link #trim()}: one that has stayed empty since the previous trim is released there,
 * down to the bound, so a working set that swings over several blocks re-registers nothing
 * while traffic lasts and shrinks to the bound by the second trim after it stops.
 * Also hands out page runs from the blocks it holds, best fit ({@link PageHeap}). Its methods take
 * this object's lock: they run when a size-class pool needs a new run, or a page run misses the
 * thread's cache, not per small allocation. A block is registered outside the lock, so the other
 * threads go on taking and giving back pages while the provider works.
 */
final class BlockSource {

    private final ProtectionDomain pd;
    private final int access;
    private final int blockSize;
    private final long retainedBytes;
    /** Whether empty blocks beyond the bound wait for {@link #trim()} instead of going at once. */
    private final boolean trimmed;
    private final List<Block> blocks = new ArrayList<>();
    /** Empty blocks, oldest emptied first (a block taken from again leaves; emptied again, it goes last). */
    private final List<Block> empty = new ArrayList<>();
    /** How many of {@link #empty}'s first blocks have stayed empty since the last {@link #trim()}. */
    private int emptySinceTrim;
    private final PageHeap heap;
    private boolean released;
    /** Whether a thread is registering a block for {@link #takePages} now (outside the lock). */
    private boolean registering;
    private long registeredBytes;
    private long peakRegisteredBytes;
    private long registrations;
    private long deregistrations;

    /**
     * @param trimmed whether empty blocks beyond {@code retainedBytes} stay until {@link #trim()}
     *                (whose caller must then trim periodically) rather than being released at once
     */
    BlockSource(ProtectionDomain pd, int access, int blockSize, long retainedBytes, boolean trimmed) {
        this.pd = pd;
        this.access = access;
        this.blockSize = blockSize;
        this.retainedBytes = retainedBytes;
        this.trimmed = trimmed;
        this.heap = new PageHeap(blockPages());
    }

    /**
     * Takes {@code n} contiguous pages (best fit over all blocks), registering a block if none has
     * room. One thread registers at a time, outside the lock; threads that miss meanwhile wait for
     * that block instead of each registering one of their own (which would overshoot the peak).
     */
    Block takePages(int n, int[] firstPage) {
        if (n > blockPages()) {
            throw new IllegalArgumentException(n + " pages do not fit a block of " + blockPages());
        }
        boolean interrupted = false;
        try {
            synchronized (this) {
                while (true) {
                    checkNotReleased(null);
                    Block b = takeHeld(n, firstPage);
                    if (b != null) {
                        return b;
                    }
                    if (!registering) {
                        registering = true;
                        break;
                    }
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        interrupted = true; // an allocation is not interruptible; keep the flag for the caller
                    }
                }
            }
            MemoryRegion mr;
            try {
                mr = register(blockSize);
            } catch (RuntimeException e) {
                synchronized (this) {
                    registering = false;
                    notifyAll();
                }
                throw e;
            }
            synchronized (this) {
                registering = false;
                notifyAll();
                checkNotReleased(mr);
                counted(mr);
                Block fresh = new Block(mr, false);
                blocks.add(fresh);
                heap.addBlock(fresh);
                Block b = takeHeld(n, firstPage); // pages freed meanwhile may fit better than the fresh block
                if (fresh.isEmpty()) {
                    becameEmpty(fresh);
                }
                return b;
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private Block takeHeld(int n, int[] firstPage) {
        Block b = heap.take(n, firstPage);
        if (b != null && b.retainedEmpty) {
            b.retainedEmpty = false;
            int at = empty.indexOf(b);
            empty.remove(at);
            if (at < emptySinceTrim) {
                emptySinceTrim--; // re-used: no longer a candidate for the next trim
            }
        }
        return b;
    }

    /** Gives pages back; an empty block is kept or released, as the retained bound (and {@link #trim()}) say. */
    synchronized void givePages(Block b, int first, int n) {
        give(b, first, n);
    }

    /** Gives back the page runs of {@code count} chunks from {@code from[at]} under one lock, clearing those slots. */
    synchronized void givePages(Chunk[] from, int at, int count) {
        for (int i = at; i < at + count; i++) {
            Chunk c = from[i];
            from[i] = null;
            give(c.block, c.slot, c.capacity / SizeClasses.PAGE_SIZE);
        }
    }

    private void give(Block b, int first, int n) {
        if (released) {
            return; // a free that raced with close: the block is gone already
        }
        if (heap.give(b, first, n)) {
            becameEmpty(b);
        }
    }

    /** Joins the empty list as its newest; an untrimmed source releases the oldest beyond the bound now. */
    private void becameEmpty(Block b) {
        b.retainedEmpty = true;
        empty.add(b);
        if (!trimmed) {
            releaseOldest(empty.size() - retainedBlocks());
        }
    }

    /**
     * Releases the empty blocks beyond the retained bound that have stayed empty since the previous
     * trim (oldest first); those that emptied since stay, and are candidates for the next trim. So
     * after two trims with nothing taken, at most the retained bytes of empty blocks stay
     * registered. Takes the lock once; allocates nothing. Does nothing after {@link #releaseAll()}.
     *
     * @return the number of blocks released
     */
    synchronized int trim() {
        if (released) {
            return 0;
        }
        int n = releaseOldest(Math.min(empty.size() - retainedBlocks(), emptySinceTrim));
        emptySinceTrim = empty.size();
        return n;
    }

    /** Releases up to {@code n} of the oldest empty blocks; returns how many. */
    private int releaseOldest(int n) {
        int done = 0;
        while (done < n && !empty.isEmpty()) {
            Block oldest = empty.remove(0);
            if (emptySinceTrim > 0) {
                emptySinceTrim--;
            }
            oldest.retainedEmpty = false;
            heap.removeBlock(oldest);
            blocks.remove(oldest);
            deregister(oldest.region);
            done++;
        }
        return done;
    }

    /** Empty blocks the retained bound allows (whole blocks). */
    private int retainedBlocks() {
        return (int) Math.min(Integer.MAX_VALUE, retainedBytes / blockSize);
    }

    /** A region of its own for an allocation larger than a block. */
    Block dedicated(int size) {
        MemoryRegion mr = register(size);
        synchronized (this) {
            checkNotReleased(mr);
            counted(mr);
        }
        return new Block(mr, true);
    }

    synchronized void releaseDedicated(Block b) {
        deregister(b.region);
    }

    /** After {@link #releaseAll()} nothing is handed out; a region just registered for the caller is closed again. */
    private void checkNotReleased(MemoryRegion justRegistered) {
        if (released) {
            if (justRegistered != null) {
                justRegistered.close();
            }
            throw new IllegalStateException("the registered pool is closed and its blocks are released");
        }
    }

    private MemoryRegion register(int size) {
        try {
            return pd.allocate(size, access);
        } catch (VerbsException | IllegalArgumentException e) {
            throw new VerbsException("the registered allocator could not get a " + size + "-byte block from the provider: "
                    + e.getMessage(), e);
        }
    }

    private void counted(MemoryRegion mr) {
        registrations++;
        registeredBytes += mr.length();
        peakRegisteredBytes = Math.max(peakRegisteredBytes, registeredBytes);
    }

    private void deregister(MemoryRegion mr) {
        registeredBytes -= mr.length();
        deregistrations++;
        mr.close();
    }

    /** Releases every block (allocator close). */
    synchronized void releaseAll() {
        released = true;
        for (Block b : blocks) {
            deregister(b.region);
        }
        blocks.clear();
        empty.clear();
        emptySinceTrim = 0;
    }

    synchronized long registeredBytes() {
        return registeredBytes;
    }

    synchronized long peakRegisteredBytes() {
        return peakRegisteredBytes;
    }

    synchronized long registrations() {
        return registrations;
    }

    synchronized long deregistrations() {
        return deregistrations;
    }

    synchronized int blocks() {
        return blocks.size();
    }

    /** Pages free in the pooled blocks (empty retained blocks included). */
    synchronized long freePages() {
        return heap.freePages();
    }

    int blockPages() {
        return blockSize / SizeClasses.PAGE_SIZE;
    }

    int access() {
        return access;
    }
}
