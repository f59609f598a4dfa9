package io.reactorrdma.verbs.ffm.rdmacore;

import io.reactorrdma.verbs.ffm.abi.Offsets;
import io.reactorrdma.verbs.ffm.abi.WorkRequestLayouts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Receive work requests built once in native memory ({@code struct ibv_recv_wr} with their SGE arrays) and patched per
 * post, as {@link SendWrChain} is for sends. One thread uses it.
 */
public final class RecvWrChain implements AutoCloseable {

    private static final long WR = WorkRequestLayouts.IBV_RECV_WR.byteSize();
    private static final long SGE = WorkRequestLayouts.IBV_SGE.byteSize();
    private static final long WR_ID = offset("wr_id");
    private static final long NEXT = offset("next");
    private static final long SG_LIST = offset("sg_list");
    private static final long NUM_SGE = offset("num_sge");

    private final Arena arena = Arena.ofShared();
    private final int capacity;
    private final int maxSge;
    private final MemorySegment wrs;
    private final MemorySegment sges;

    /** Room for {@code capacity} receives of one entry each (the engine posts one buffer per receive). */
    public RecvWrChain(int capacity) {
        this(capacity, 1);
    }

    /** Room for {@code capacity} receives of up to {@code maxSge} entries each. */
    public RecvWrChain(int capacity, int maxSge) {
        if (capacity < 1 || maxSge < 1) {
            throw new IllegalArgumentException("a chain holds at least one request of one entry, got " + capacity + " x " + maxSge);
        }
        this.capacity = capacity;
        this.maxSge = maxSge;
        this.wrs = arena.allocate(WR * capacity, 8);
        this.sges = arena.allocate(SGE * capacity * maxSge, 8);
        for (int i = 0; i < capacity; i++) {
            wrs.set(ValueLayout.ADDRESS, i * WR + SG_LIST, sges.asSlice(i * maxSge * SGE));
            wrs.set(ValueLayout.JAVA_INT, i * WR + NUM_SGE, 1);
        }
    }

    public int capacity() {
        return capacity;
    }

    /** Receive {@code i}: its id and the one buffer it lands in. */
    public RecvWrChain receive(int i, long wrId, long address, int length, int lkey) {
        return request(i, wrId).sge(i, address, length, lkey);
    }

    /** Receive {@code i}: its id; no entries until {@link #sge}. */
    public RecvWrChain request(int i, long wrId) {
        wrs.set(ValueLayout.JAVA_LONG, i * WR + WR_ID, wrId);
        wrs.set(ValueLayout.JAVA_INT, i * WR + NUM_SGE, 0);
        return this;
    }

    /** Appends a scatter/gather entry to receive {@code i}. */
    public RecvWrChain sge(int i, long address, int length, int lkey) {
        long at = i * WR;
        int n = wrs.get(ValueLayout.JAVA_INT, at + NUM_SGE);
        if (n == maxSge) {
            throw new IllegalArgumentException("receive " + i + " already has its " + maxSge + " entries");
        }
        long s = (i * (long) maxSge + n) * SGE;
        sges.set(ValueLayout.JAVA_LONG, s, address);
        sges.set(ValueLayout.JAVA_INT, s + 8, length);
        sges.set(ValueLayout.JAVA_INT, s + 12, lkey);
        wrs.set(ValueLayout.JAVA_INT, at + NUM_SGE, n + 1);
        return this;
    }

    /** Links requests 0..n-1 and returns the first, for a post. */
    MemorySegment link(int n) {
        return NativeCalls.link(wrs, WR, NEXT, n, capacity);
    }

    int indexOf(long address) {
        return NativeCalls.indexOf(wrs, WR, capacity, address);
    }

    @Override
    public void close() {
        arena.close();
    }

    private static long offset(String field) {
        return Offsets.of(WorkRequestLayouts.IBV_RECV_WR, field);
    }
}
