package io.reactorrdma.verbs.work;

import io.reactorrdma.verbs.MemoryRegion;

/**
 * A reusable scatter/gather list ({@code struct ibv_sge[]}): entries of (address, length, lkey),
 * stored in parallel arrays so that filling one allocates nothing.
 */
public class ScatterGatherList {

    private final long[] address;
    private final int[] length;
    private final int[] lkey;
    private int count;

    /** A list with room for {@code capacity} entries (the queue pair's max SGE is the useful bound). */
    public ScatterGatherList(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a scatter/gather list needs room for at least one entry, got " + capacity);
        }
        this.address = new long[capacity];
        this.length = new int[capacity];
        this.lkey = new int[capacity];
    }

    /** Drops every entry. */
    public void clearSges() {
        count = 0;
    }

    /** Appends an entry: {@code length} bytes at {@code address} in the region whose local key is {@code lkey}. */
    public void addSge(long address, int length, int lkey) {
        if (count == this.address.length) {
            throw new IllegalStateException("scatter/gather list is full (" + count
                    + " entries); create the request with a larger capacity");
        }
        if (length < 0) {
            throw new IllegalArgumentException("negative scatter/gather length " + length);
        }
        this.address[count] = address;
        this.length[count] = length;
        this.lkey[count] = lkey;
        count++;
    }

    /** Replaces the list with the single entry given. */
    public void setSge(long address, int length, int lkey) {
        count = 0;
        addSge(address, length, lkey);
    }

    /** Replaces the list with one entry covering {@code length} bytes at {@code offset} into {@code mr}. */
    public void setSge(MemoryRegion mr, long offset, int length) {
        setSge(mr.address() + offset, length, mr.lkey());
    }

    public int numSge() {
        return count;
    }

    public long sgeAddress(int i) {
        return address[i];
    }

    public int sgeLength(int i) {
        return length[i];
    }

    public int sgeLkey(int i) {
        return lkey[i];
    }

    /** The capacity given at construction. */
    public int sgeCapacity() {
        return address.length;
    }

    /** Sum of the entry lengths, as a long so that overflow is visible. */
    public long totalLength() {
        long total = 0;
        for (int i = 0; i < count; i++) {
            total += length[i];
        }
        return total;
    }
}
