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
 * Also hands out page runs from the blocks it holds. All methods take this object's lock: they run
 * when a size-class pool needs a new run or a large allocation comes, not per small allocation.
 */
final class BlockSource {

    private final ProtectionDomain pd;
    private final int access;
    private final int blockSize;
    private final long retainedBytes;
    private final List<Block> blocks = new ArrayList<>();
    private final List<Block> empty = new ArrayList<>();
    private long registeredBytes;
    private long peakRegisteredBytes;
    private long registrations;
    private long deregistrations;

    BlockSource(ProtectionDomain pd, int access, int blockSize, long retainedBytes) {
        this.pd = pd;
        this.access = access;
        this.blockSize = blockSize;
        this.retainedBytes = retainedBytes;
    }

    /** Takes {@code n} contiguous pages from some block, acquiring a block if none has room. */
    synchronized Block takePages(int n, int[] firstPage) {
        for (Block b : blocks) {
            if (b.freePages() >= n) {
                int p = b.takePages(n);
                if (p >= 0) {
                    empty.remove(b);
                    firstPage[0] = p;
                    return b;
                }
            }
        }
        if (n > blockPages()) {
            throw new IllegalArgumentException(n + " pages do not fit a block of " + blockPages());
        }
        Block b = new Block(register(blockSize), false);
        blocks.add(b);
        firstPage[0] = b.takePages(n);
        return b;
    }

    /** Gives pages back; an empty block is kept or released, as the retained bound says. */
    synchronized void givePages(Block b, int first, int n) {
        b.givePages(first, n);
        if (b.isEmpty()) {
            empty.add(b);
            trimEmpty();
        }
    }

    /** A region of its own for an allocation larger than a block. */
    synchronized Block dedicated(int size) {
        return new Block(register(size), true);
    }

    synchronized void releaseDedicated(Block b) {
        deregister(b.region);
    }

    private void trimEmpty() {
        long retained = (long) empty.size() * blockSize;
        while (retained > retainedBytes && !empty.isEmpty()) {
            Block b = empty.remove(0);
            blocks.remove(b);
            deregister(b.region);
            retained -= blockSize;
        }
    }

    private MemoryRegion register(int size) {
        MemoryRegion mr;
        try {
            mr = pd.allocate(size, access);
        } catch (VerbsException | IllegalArgumentException e) {
            throw new VerbsException("the registered allocator could not get a " + size + "-byte block from the provider: "
                    + e.getMessage(), e);
        }
        registrations++;
        registeredBytes += mr.length();
        peakRegisteredBytes = Math.max(peakRegisteredBytes, registeredBytes);
        return mr;
    }

    private void deregister(MemoryRegion mr) {
        registeredBytes -= mr.length();
        deregistrations++;
        mr.close();
    }

    /** Releases every block (allocator close). */
    synchronized void releaseAll() {
        for (Block b : blocks) {
            deregister(b.region);
        }
        blocks.clear();
        empty.clear();
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

    int blockPages() {
        return blockSize / SizeClasses.PAGE_SIZE;
    }

    int access() {
        return access;
    }
}
