package io.reactorrdma.verbs.soft;

import io.reactorrdma.verbs.MemoryRegion;

import java.nio.ByteBuffer;

/** A soft region: provider memory (direct buffer or mapped file) and its table slot. */
final class SoftMemoryRegion implements MemoryRegion {

    final SoftContext context;
    final int pdId;
    final int index;
    final int key;
    final long address;
    final int length;
    final int access;
    /** The memory; index 0 is {@link #address}. Never handed out: callers get duplicates. */
    final ByteBuffer memory;
    private volatile boolean valid = true;

    SoftMemoryRegion(SoftContext context, int pdId, int index, int key, long address, int length, int access, ByteBuffer memory) {
        this.context = context;
        this.pdId = pdId;
        this.index = index;
        this.key = key;
        this.address = address;
        this.length = length;
        this.access = access;
        this.memory = memory;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public int lkey() {
        return key;
    }

    @Override
    public int rkey() {
        return key;
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public ByteBuffer buffer() {
        ByteBuffer b = memory.duplicate();
        b.clear();
        return b;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    /** Marks the region dead; returns false if it already was. */
    boolean invalidate() {
        if (!valid) {
            return false;
        }
        valid = false;
        return true;
    }

    @Override
    public void close() {
        context.deregister(this);
    }

    @Override
    public String toString() {
        return "MemoryRegion{addr=0x" + Long.toHexString(address) + ", length=" + length + ", key=0x"
                + Integer.toHexString(key) + ", access=" + io.reactorrdma.verbs.AccessFlags.toString(access)
                + (valid ? "" : ", deregistered") + "}";
    }
}
