package io.reactorrdma.verbs.ffm.rdmacore;

import java.lang.foreign.MemorySegment;

/**
 * A registered memory region ({@code struct ibv_mr}): its keys name it in work requests (lkey) and to peers
 * (rkey). Not thread-safe; close once.
 */
public final class RdmaMr implements AutoCloseable {

    private final Libibverbs lib;
    private final String device;
    private final MemorySegment mr;
    private final long address;
    private final long length;
    private final int lkey;
    private final int rkey;
    private boolean closed;

    RdmaMr(Libibverbs lib, String device, MemorySegment mr, long address, long length, int lkey, int rkey) {
        this.lib = lib;
        this.device = device;
        this.mr = mr;
        this.address = address;
        this.length = length;
        this.lkey = lkey;
        this.rkey = rkey;
    }

    public long address() {
        return address;
    }

    public long length() {
        return length;
    }

    public int lkey() {
        return lkey;
    }

    public int rkey() {
        return rkey;
    }

    /** Deregisters the region ({@code ibv_dereg_mr}); later calls do nothing. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            NativeCalls.destroy(lib.deregMr, mr, "ibv_dereg_mr", device, "a memory window may still be bound to the region");
        }
    }
}
