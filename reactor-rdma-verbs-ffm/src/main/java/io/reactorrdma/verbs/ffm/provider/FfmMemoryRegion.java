package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaMr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The SPI's memory region over rdma-core: a registration ({@code ibv_mr}) and its memory, which the region owns when
 * the provider allocated it (freed at close, after deregistration) and the caller owns when it registered its own
 * buffer.
 */
final class FfmMemoryRegion implements MemoryRegion {

    private final RdmaMr mr;
    private final MemorySegment memory;
    private final Arena owned;
    private final int access;
    private final ByteBuffer buffer;
    /** Tells the domain the region is gone. */
    private final Consumer<FfmMemoryRegion> forget;
    private final AtomicBoolean valid = new AtomicBoolean(true);

    FfmMemoryRegion(RdmaMr mr, MemorySegment memory, Arena owned, int access, Consumer<FfmMemoryRegion> forget) {
        this.mr = mr;
        this.forget = forget;
        this.memory = memory;
        this.owned = owned;
        this.access = access;
        this.buffer = memory.asByteBuffer();
    }

    @Override
    public long address() {
        return mr.address();
    }

    @Override
    public int length() {
        return (int) mr.length();
    }

    @Override
    public int lkey() {
        return mr.lkey();
    }

    @Override
    public int rkey() {
        return mr.rkey();
    }

    @Override
    public int access() {
        return access;
    }

    /** The memory, position 0 and limit {@link #length()}; a new view each call would allocate, so one is kept. */
    @Override
    public ByteBuffer buffer() {
        return buffer;
    }

    @Override
    public boolean isValid() {
        return valid.get();
    }

    MemorySegment segment() {
        return memory;
    }

    @Override
    public void close() {
        if (valid.compareAndSet(true, false)) { // the domain's close may race the owner's: deregister once
            forget.accept(this);
            try {
                mr.close();
            } finally {
                if (owned != null) {
                    owned.close();
                }
            }
        }
    }

    @Override
    public String toString() {
        return "FfmMemoryRegion{address=0x" + Long.toHexString(address()) + ", length=" + length() + ", lkey=" + lkey() + "}";
    }
}
