package io.reactorrdma.verbs.soft;

import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.ProtectionDomain;

import java.nio.ByteBuffer;

/** A soft protection domain: a number that regions and queue pairs carry and that every access checks. */
final class SoftProtectionDomain implements ProtectionDomain {

    final SoftContext context;
    final int id;
    private volatile boolean closed;

    SoftProtectionDomain(SoftContext context, int id) {
        this.context = context;
        this.id = id;
    }

    @Override
    public MemoryRegion allocate(int size, int access) {
        checkOpen();
        if (size <= 0 || size > SoftLimits.MAX_REGION_SIZE) {
            throw new IllegalArgumentException("region size must be 1.." + SoftLimits.MAX_REGION_SIZE + " bytes, got " + size);
        }
        return context.register(this, size, AccessFlags.validate(access), null);
    }

    @Override
    public MemoryRegion register(ByteBuffer directBuffer, int access) {
        checkOpen();
        return context.registerCallerMemory(this, directBuffer, AccessFlags.validate(access));
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("protection domain " + id + " is closed");
        }
        context.checkOpen();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            context.closePd(this);
        }
    }
}
