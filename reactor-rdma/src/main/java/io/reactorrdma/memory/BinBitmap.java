package io.reactorrdma.memory;

/**
 * Which bins of a free list binned by length are non-empty: bit n for bin n, 64 to a {@code long},
 * so the next non-empty bin at or above a length, and the highest one, are a few word scans.
 * Shared by {@link PageHeap} (free extents) and {@link PageRunCache} (cached page runs). Not
 * thread-safe: guarded like its owner.
 */
final class BinBitmap {

    private final long[] words;

    /** Bins 0..{@code maxBin}. */
    BinBitmap(int maxBin) {
        this.words = new long[(maxBin >>> 6) + 1];
    }

    void set(int bin) {
        words[bin >>> 6] |= 1L << bin;
    }

    void clear(int bin) {
        words[bin >>> 6] &= ~(1L << bin);
    }

    /** The lowest non-empty bin ≥ {@code from} and ≤ {@code to}, or -1. */
    int next(int from, int to) {
        int w = from >>> 6;
        if (w >= words.length) {
            return -1;
        }
        long word = words[w] & (-1L << from);
        while (word == 0) {
            if (++w == words.length || w << 6 > to) {
                return -1;
            }
            word = words[w];
        }
        int bin = (w << 6) + Long.numberOfTrailingZeros(word);
        return bin <= to ? bin : -1;
    }

    /** The highest non-empty bin, or -1 when all are empty. */
    int highest() {
        for (int w = words.length - 1; w >= 0; w--) {
            if (words[w] != 0) {
                return (w << 6) + 63 - Long.numberOfLeadingZeros(words[w]);
            }
        }
        return -1;
    }
}
