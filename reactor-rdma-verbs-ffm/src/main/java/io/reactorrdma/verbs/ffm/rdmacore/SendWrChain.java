package io.reactorrdma.verbs.ffm.rdmacore;

import io.reactorrdma.verbs.ffm.abi.Offsets;
import io.reactorrdma.verbs.ffm.abi.WorkRequestLayouts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Send work requests built once in native memory ({@code struct ibv_send_wr} with their SGE arrays) and patched per
 * post: set what changes, then {@link RdmaQp#postSend} the first {@code n}. No allocation per post. One thread uses it.
 */
public final class SendWrChain implements AutoCloseable {

    private static final long WR = WorkRequestLayouts.IBV_SEND_WR.byteSize();
    private static final long SGE = WorkRequestLayouts.IBV_SGE.byteSize();
    private static final long WR_ID = offset("wr_id");
    private static final long NEXT = offset("next");
    private static final long SG_LIST = offset("sg_list");
    private static final long NUM_SGE = offset("num_sge");
    private static final long OPCODE = offset("opcode");
    private static final long SEND_FLAGS = offset("send_flags");
    private static final long IMM = offset("imm", "imm_data");
    private static final long REMOTE_ADDR = offset("wr", "rdma", "remote_addr");
    private static final long RKEY = offset("wr", "rdma", "rkey");

    private final Arena arena = Arena.ofShared();
    private final int capacity;
    private final int maxSge;
    private final MemorySegment wrs;
    private final MemorySegment sges;

    /** Room for {@code capacity} requests of up to {@code maxSge} entries each. */
    public SendWrChain(int capacity, int maxSge) {
        if (capacity < 1 || maxSge < 1) {
            throw new IllegalArgumentException("a chain holds at least one request of one entry, got " + capacity + " x " + maxSge);
        }
        this.capacity = capacity;
        this.maxSge = maxSge;
        this.wrs = arena.allocate(WR * capacity, 8);
        this.sges = arena.allocate(SGE * capacity * maxSge, 8);
        for (int i = 0; i < capacity; i++) {
            wrs.set(ValueLayout.ADDRESS, i * WR + SG_LIST, sges.asSlice(i * maxSge * SGE));
        }
    }

    public int capacity() {
        return capacity;
    }

    /** Request {@code i}: its id, {@code IBV_WR_*} opcode, {@code IBV_SEND_*} flags; no entries until {@link #sge}. */
    public SendWrChain request(int i, long wrId, int opcode, int flags) {
        long at = i * WR;
        wrs.set(ValueLayout.JAVA_LONG, at + WR_ID, wrId);
        wrs.set(ValueLayout.JAVA_INT, at + OPCODE, opcode);
        wrs.set(ValueLayout.JAVA_INT, at + SEND_FLAGS, flags);
        wrs.set(ValueLayout.JAVA_INT, at + NUM_SGE, 0);
        return this;
    }

    /** Appends a scatter/gather entry to request {@code i}. */
    public SendWrChain sge(int i, long address, int length, int lkey) {
        long at = i * WR;
        int n = wrs.get(ValueLayout.JAVA_INT, at + NUM_SGE);
        if (n == maxSge) {
            throw new IllegalArgumentException("request " + i + " already has its " + maxSge + " entries");
        }
        long s = (i * (long) maxSge + n) * SGE;
        sges.set(ValueLayout.JAVA_LONG, s, address);
        sges.set(ValueLayout.JAVA_INT, s + 8, length);
        sges.set(ValueLayout.JAVA_INT, s + 12, lkey);
        wrs.set(ValueLayout.JAVA_INT, at + NUM_SGE, n + 1);
        return this;
    }

    /** The remote side of a WRITE or READ of request {@code i}. */
    public SendWrChain remote(int i, long remoteAddress, int rkey) {
        wrs.set(ValueLayout.JAVA_LONG, i * WR + REMOTE_ADDR, remoteAddress);
        wrs.set(ValueLayout.JAVA_INT, i * WR + RKEY, rkey);
        return this;
    }

    /** The immediate data of a *_WITH_IMM request {@code i}, as the peer will read it from its completion. */
    public SendWrChain immediate(int i, int imm) {
        wrs.set(ValueLayout.JAVA_INT, i * WR + IMM, imm);
        return this;
    }

    /** Links requests 0..n-1 and returns the first, for a post. */
    MemorySegment link(int n) {
        return NativeCalls.link(wrs, WR, NEXT, n, capacity);
    }

    /** Which request of this chain {@code address} is. */
    int indexOf(long address) {
        return NativeCalls.indexOf(wrs, WR, capacity, address);
    }

    @Override
    public void close() {
        arena.close();
    }

    private static long offset(String... path) {
        return Offsets.of(WorkRequestLayouts.IBV_SEND_WR, path);
    }
}
