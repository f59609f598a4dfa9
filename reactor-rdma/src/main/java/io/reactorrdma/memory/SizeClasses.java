package io.reactorrdma.memory;

/**
 * The size classes of the registered allocator. Requests up to {@link #MAX_SIZE_CLASS} round up
 * to a class and are served from runs (slabs) of equal slots; classes are 16 bytes apart up to
 * 128 bytes, then four per power of two (at most 25% internal waste, as in jemalloc and
 * rpmalloc). Larger requests take a run of whole pages of a block, rounded up to the page only
 * (as jemalloc's and Netty's large allocations do: no slots to strand), or a region of their own
 * beyond the block size.
 *
 * <p>A run is a multiple of {@link #RUN_GRANULE} holding at least {@link #MIN_SLOTS_PER_RUN}
 * slots, so that run carving (which takes a lock) is rare.
 */
final class SizeClasses {

    /** Blocks are divided into pages of this size; runs and page allocations are whole pages. */
    static final int PAGE_SIZE = 8 * 1024;
    static final int MIN_SIZE = 16;
    /** Largest size served from size-class runs; larger sizes are page runs. */
    static final int MAX_SIZE_CLASS = 64 * 1024;
    static final int MIN_SLOTS_PER_RUN = 8;
    /** Runs of size classes are a multiple of this: small classes get many slots per lock taken. */
    static final int RUN_GRANULE = 64 * 1024;

    private static final int[] SIZES = buildSizes();
    static final int COUNT = SIZES.length;
    /** Class index for sizes up to 1024, by (size - 1) >> 4: a table lookup for the common small sizes. */
    private static final byte[] SMALL_INDEX = buildSmallIndex();

    private SizeClasses() {
    }

    private static int[] buildSizes() {
        int[] tmp = new int[128];
        int n = 0;
        for (int s = 16; s <= 128; s += 16) {
            tmp[n++] = s;
        }
        for (int base = 128; base < MAX_SIZE_CLASS; base <<= 1) {
            int step = base / 4;
            for (int i = 1; i <= 4; i++) {
                tmp[n++] = base + i * step;
            }
        }
        int[] sizes = new int[n];
        System.arraycopy(tmp, 0, sizes, 0, n);
        return sizes;
    }

    private static byte[] buildSmallIndex() {
        byte[] t = new byte[64];
        int c = 0;
        for (int i = 0; i < 64; i++) {
            int size = (i + 1) << 4;
            while (SIZES[c] < size) {
                c++;
            }
            t[i] = (byte) c;
        }
        return t;
    }

    /** The class for {@code size} (1..MAX_SIZE_CLASS). */
    static int classOf(int size) {
        if (size <= 1024) {
            return SMALL_INDEX[(size - 1) >> 4];
        }
        // four classes per power of two above 128: find the power, then the quarter
        int log = 31 - Integer.numberOfLeadingZeros(size - 1); // size-1 in [2^log, 2^(log+1))
        int base = 1 << log;
        int quarter = (size - 1 - base) / (base >> 2);   // 0..3
        return 8 + (log - 7) * 4 + quarter;
    }

    static int sizeOf(int sizeClass) {
        return SIZES[sizeClass];
    }

    /**
     * Pages in a run of this class: {@link #MIN_SLOTS_PER_RUN} slots, rounded up to a multiple of
     * {@link #RUN_GRANULE} (between 64 KiB for the smallest classes and 512 KiB for 64 KiB slots).
     */
    static int runPages(int sizeClass) {
        long bytes = (long) SIZES[sizeClass] * MIN_SLOTS_PER_RUN;
        bytes = (bytes + RUN_GRANULE - 1) / RUN_GRANULE * RUN_GRANULE;
        return (int) (bytes / PAGE_SIZE);
    }

    /** Slots cached per thread for this class: what fits {@code bytesPerClass}, between 1 and 64. */
    static int threadCacheSlots(int sizeClass, int bytesPerClass) {
        return Math.max(1, Math.min(64, bytesPerClass / SIZES[sizeClass]));
    }
}
