package io.reactorrdma.verbs.soft;

/**
 * How the soft provider forms keys and addresses. A key is {@code generation << 16 | index}: the
 * index names a slot of the context's region table, the generation (1..65535) changes on every
 * registration of that slot, so a stale rkey never matches a later region. lkey and rkey are the
 * same number, as on most hardware. A region's address is {@code (index + 1) << 32}: regions never
 * overlap, an address shows its region at a glance, and offsets fit 32 bits (regions are at most
 * 1 GiB).
 */
final class RegionKeys {

    static final int MAX_INDEX = 0xFFFF;

    private RegionKeys() {
    }

    static int key(int index, int generation) {
        return (generation << 16) | index;
    }

    static int index(int key) {
        return key & 0xFFFF;
    }

    static long baseAddress(int index) {
        return ((long) index + 1) << 32;
    }

    /**
     * Offset of {@code [address, address + length)} in a region of {@code regionLength} bytes at
     * {@code base}, or -1 if the range does not lie inside it (no overflow for any input).
     */
    static long offsetIn(long base, int regionLength, long address, long length) {
        long offset = address - base;
        if (address < base || offset > regionLength || length < 0 || length > regionLength - offset) {
            return -1;
        }
        return offset;
    }
}
