package io.reactorrdma.memory;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.util.internal.CleanableDirectBuffer;

/**
 * A Netty direct buffer whose memory is a {@link Chunk} of registered memory. Built on Netty's own
 * direct buffer, so every read and write is Netty's code; what changes is where the memory comes
 * from (the initial chunk, and a new chunk whenever the capacity changes) and where it goes when the
 * last reference is released (back to the pool).
 */
final class RegisteredByteBuf extends UnpooledUnsafeDirectByteBuf {

    private final RegisteredPool pool;
    /** The chunk the buffer was created on, until the buffer moves to another (Netty does not free it then). */
    private Chunk initial;
    /** The chunk the buffer lives in now. Set by {@link #allocateDirectBuffer} too. */
    private Chunk current;

    RegisteredByteBuf(RegisteredByteBufAllocator alloc, RegisteredPool pool, Chunk chunk, int maxCapacity) {
        super(alloc, chunk.buffer(), maxCapacity);
        clear(); // Netty treats a given buffer's bytes as readable; a new buffer starts empty
        this.pool = pool;
        this.initial = chunk;
        this.current = chunk;
    }

    /** Netty asks for new memory when the capacity changes: take it from the pool. */
    @Override
    protected CleanableDirectBuffer allocateDirectBuffer(int capacity) {
        Chunk c = pool.allocateAtLeast(capacity);
        current = c;
        return c;
    }

    @Override
    public ByteBuf capacity(int newCapacity) {
        Chunk before = current;
        super.capacity(newCapacity);
        if (current != before && before == initial) {
            // Netty frees a buffer it allocated itself (through Chunk.clean), not the one it was given.
            initial = null;
            pool.free(before);
        }
        return this;
    }

    @Override
    protected void deallocate() {
        Chunk c = initial;
        super.deallocate(); // frees a chunk Netty allocated (capacity changed), not the initial one
        if (c != null) {
            initial = null;
            pool.free(c);
        }
    }

    /** The chunk the buffer lives in now. */
    Chunk chunk() {
        return current;
    }
}
