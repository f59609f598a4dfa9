package io.reactorrdma.memory;

/**
 * The free pages of all pooled blocks, as extents (maximal runs of free pages within a block),
 * handed out best fit: a request for n pages takes the smallest free extent of at least n pages,
 * in any block, so large runs find room in partly used blocks and small requests do not cut up
 * big extents. Freed pages merge with their free neighbours at once.
 *
 * <p>Extents are kept in bins by exact length (intrusive doubly linked lists, most recently freed
 * first) with a bitmap of the non-empty bins; each block maps its free extents' first and last
 * pages to them, for merging. Every operation is O(1) apart from the bitmap scan for the next
 * non-empty bin (one {@code long} per 64 lengths). Not thread-safe: guarded by the
 * {@link BlockSource} lock.
 */
final class PageHeap {

    /** A maximal run of free pages in one block. */
    static final class Extent {
        Block block;
        int start;
        int pages;
        Extent prev;
        Extent next;
    }

    /** bins[n]: the free extents of exactly n pages. */
    private final Extent[] bins;
    /** Bin n is set when bins[n] is not empty. */
    private final BinBitmap nonEmpty;
    /** Recycled extent objects, linked through {@link Extent#next}. */
    private Extent spare;
    private long freePages;

    PageHeap(int maxPages) {
        this.bins = new Extent[maxPages + 1];
        this.nonEmpty = new BinBitmap(maxPages);
    }

    /** Adds a block whose pages are all free. */
    void addBlock(Block b) {
        insert(extent(b, 0, b.pages));
    }

    /** Removes an empty block (all its pages free) from the heap, before it is released. */
    void removeBlock(Block b) {
        Extent e = b.freeAt[0];
        if (e == null || e.pages != b.pages) {
            throw new IllegalStateException("block " + b.region + " is not empty");
        }
        remove(e);
        recycle(e);
    }

    /**
     * Takes {@code n} contiguous pages from the smallest free extent that holds them.
     *
     * @return the extent's block, with the first page in {@code firstPage[0]}; null when no extent is long enough
     */
    Block take(int n, int[] firstPage) {
        int len = nonEmpty.next(n, Integer.MAX_VALUE);
        if (len < 0) {
            return null;
        }
        Extent e = bins[len];
        remove(e);
        Block b = e.block;
        int start = e.start;
        if (len > n) {
            e.start = start + n;
            e.pages = len - n;
            insert(e);
        } else {
            recycle(e);
        }
        b.markUsed(start, n);
        firstPage[0] = start;
        return b;
    }

    /**
     * Gives back {@code n} pages from {@code first} of {@code b}, merging them with free neighbours.
     *
     * @return whether the block is now empty
     */
    boolean give(Block b, int first, int n) {
        b.markFree(first, n);
        int start = first;
        int len = n;
        Extent left = first > 0 ? b.freeEnding[first - 1] : null;
        if (left != null) {
            remove(left);
            start = left.start;
            len += left.pages;
            recycle(left);
        }
        int after = first + n;
        Extent right = after < b.pages ? b.freeAt[after] : null;
        if (right != null) {
            remove(right);
            len += right.pages;
            recycle(right);
        }
        insert(extent(b, start, len));
        return b.isEmpty();
    }

    /** Free pages in all blocks of the heap. */
    long freePages() {
        return freePages;
    }

    /** Length of the longest free extent, 0 when there is none. */
    int longestFree() {
        return Math.max(0, nonEmpty.highest());
    }

    private Extent extent(Block b, int start, int pages) {
        Extent e = spare;
        if (e != null) {
            spare = e.next;
        } else {
            e = new Extent();
        }
        e.block = b;
        e.start = start;
        e.pages = pages;
        e.prev = null;
        e.next = null;
        return e;
    }

    private void recycle(Extent e) {
        e.block = null;
        e.prev = null;
        e.next = spare;
        spare = e;
    }

    private void insert(Extent e) {
        Block b = e.block;
        b.freeAt[e.start] = e;
        b.freeEnding[e.start + e.pages - 1] = e;
        Extent head = bins[e.pages];
        e.prev = null;
        e.next = head;
        if (head != null) {
            head.prev = e;
        }
        bins[e.pages] = e;
        nonEmpty.set(e.pages);
        freePages += e.pages;
    }

    private void remove(Extent e) {
        Block b = e.block;
        b.freeAt[e.start] = null;
        b.freeEnding[e.start + e.pages - 1] = null;
        if (e.prev != null) {
            e.prev.next = e.next;
        } else {
            bins[e.pages] = e.next;
            if (e.next == null) {
                nonEmpty.clear(e.pages);
            }
        }
        if (e.next != null) {
            e.next.prev = e.prev;
        }
        e.prev = null;
        e.next = null;
        freePages -= e.pages;
    }
}
