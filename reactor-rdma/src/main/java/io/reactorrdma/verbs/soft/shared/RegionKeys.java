package io.reactorrdma.verbs.soft.shared;

import java.util.random.RandomGenerator;

/**
 * How the soft provider forms keys and addresses. A key is {@code tag << 16 | index}: the index
 * names a slot of the context's region table (unique among the context's live regions, so keys
 * stay unique), the tag (1..65535) is drawn at random on every registration and differs from the
 * slot's previous tag, so a stale rkey never matches the next region of its slot and a peer
 * cannot guess the key of a region it was not given. lkey and rkey are the same number, as on
 * most hardware.
 *
 * <p>A region's address is {@code salt | (index + 1) << 32}, where the salt is a random
 * per-context value in bits 49..62: regions never overlap, offsets fit 32 bits (regions are at
 * most 1 GiB), an address shows its region at a glance, and two contexts give different
 * addresses to their regions, so an address (or key) of one context does not name memory of
 * another.
 */
public final class RegionKeys {

    public static final int MAX_INDEX = 0xFFFF;
    private static final int SALT_SHIFT = 49;
    private static final int SALT_BITS = 14;

    private RegionKeys() {
    }

    public static int key(int index, int tag) {
        return (tag << 16) | index;
    }

    public static int index(int key) {
        return key & 0xFFFF;
    }

    static int tag(int key) {
        return key >>> 16;
    }

    /** A random tag for a new registration of a slot whose previous key had {@code previousTag} (0: none). */
    public static int nextTag(RandomGenerator random, int previousTag) {
        int tag;
        do {
            tag = 1 + random.nextInt(0xFFFF);
        } while (tag == previousTag);
        return tag;
    }

    /** A random, non-zero address salt for a new context. */
    public static long addressSalt(RandomGenerator random) {
        return (1L + random.nextLong((1L << SALT_BITS) - 1)) << SALT_SHIFT;
    }

    public static long baseAddress(long salt, int index) {
        return salt | ((long) index + 1) << 32;
    }

    /**
     * Offset of {@code [address, address + length)} in a region of {@code regionLength} bytes at
     * {@code base}, or -1 if the range does not lie inside it (no overflow for any input).
     */
    public static long offsetIn(long base, int regionLength, long address, long length) {
        long offset = address - base;
        if (address < base || offset > regionLength || length < 0 || length > regionLength - offset) {
            return -1;
        }
        return offset;
    }
}
