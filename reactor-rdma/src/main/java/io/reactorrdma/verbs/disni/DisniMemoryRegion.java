package io.reactorrdma.verbs.disni;

import com.ibm.disni.verbs.IbvMr;
import io.reactorrdma.verbs.MemoryRegion;

import java.io.IOException;
import java.nio.ByteBuffer;

/** A region registered with {@code ibv_reg_mr} ({@code IbvPd.regMr}) over a direct buffer. */
final class DisniMemoryRegion implements MemoryRegion {

    private final DisniProtectionDomain pd;
    private final IbvMr mr;
    private final ByteBuffer memory;
    private final int access;
    private volatile boolean valid = true;

    DisniMemoryRegion(DisniProtectionDomain pd, IbvMr mr, ByteBuffer memory, int access) {
        this.pd = pd;
        this.mr = mr;
        this.memory = memory;
        this.access = access;
    }

    @Override
    public long address() {
        return mr.getAddr();
    }

    @Override
    public int length() {
        return mr.getLength();
    }

    @Override
    public int lkey() {
        return mr.getLkey();
    }

    @Override
    public int rkey() {
        return mr.getRkey();
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public ByteBuffer buffer() {
        return memory.duplicate().clear();
    }

    @Override
    public boolean isValid() {
        return valid && mr.isOpen();
    }

    @Override
    public void close() {
        synchronized (this) {
            if (!valid) {
                return;
            }
            valid = false;
        }
        pd.forget(this);
        try {
            mr.deregMr().execute().free();
        } catch (IOException e) {
            throw new io.reactorrdma.verbs.VerbsException("ibv_dereg_mr of region 0x" + Long.toHexString(address())
                    + " failed: " + e.getMessage() + " (is a queue pair still using it?)", e);
        }
    }
}
