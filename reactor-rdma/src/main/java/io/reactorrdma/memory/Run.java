package io.reactorrdma.memory;

/**
 * A slab: {@link SizeClasses#runPages} pages of one block (at most the whole block) cut into equal slots of one size class.
 * Guarded by its {@link SizeClassPool}'s lock.
 */
final class Run {

    private final RegisteredPool owner;
    final Block block;
    final int firstPage;
    final int pages;
    final int sizeClass;
    private final int base;
    private final int size;
    private final Chunk[] chunks;
    private final int[] free;
    private int freeCount;
    /** Whether the run is on its pool's list of runs with free slots. */
    boolean listed;

    Run(RegisteredPool owner, Block block, int firstPage, int pages, int sizeClass) {
        this.block = block;
        this.firstPage = firstPage;
        this.owner = owner;
        this.pages = pages;
        this.sizeClass = sizeClass;
        this.size = SizeClasses.sizeOf(sizeClass);
        this.base = firstPage * SizeClasses.PAGE_SIZE;
        int slots = pages * SizeClasses.PAGE_SIZE / size;
        this.chunks = new Chunk[slots];
        this.free = new int[slots];
        for (int i = 0; i < slots; i++) {
            free[i] = slots - 1 - i;
        }
        freeCount = slots;
    }

    /** Takes a free slot's chunk, creating the chunk object on the slot's first use. */
    Chunk take() {
        int slot = free[--freeCount];
        Chunk c = chunks[slot];
        if (c == null) {
            c = new Chunk(owner, block, base + slot * size, size, sizeClass, this, slot);
            chunks[slot] = c;
        }
        return c;
    }

    void give(Chunk c) {
        free[freeCount++] = c.slot;
    }

    boolean hasFree() {
        return freeCount > 0;
    }

    boolean isEmpty() {
        return freeCount == chunks.length;
    }

    int slots() {
        return chunks.length;
    }
}
