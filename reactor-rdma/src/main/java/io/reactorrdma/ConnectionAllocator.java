package io.reactorrdma;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The allocator of one connection ({@link RdmaConnection#alloc()}, and so RSocket's
 * {@code DuplexConnection.alloc()}): registered memory for the messages sent to its peer.
 * Buffers asked for no larger than the peer takes eagerly come from the resources' local pool
 * (thread caches, no lock). A larger one comes from the connection's readable pool, so the
 * message it becomes goes by pull rendezvous: the peer READs it where it lies and this side is not
 * woken to move it. That pool holds only messages exchanged with this peer, which may read it:
 * allocate there what is meant for this peer. Without pull on the connection, everything comes
 * from the local pool.
 */
final class ConnectionAllocator extends AbstractByteBufAllocator {

    private final ByteBufAllocator local;
    /** The connection's readable pool, or null when pull rendezvous is off. */
    private final ByteBufAllocator readable;
    /** Buffers whose initial capacity is above this many bytes come from {@link #readable}. */
    private final int readableAbove;

    ConnectionAllocator(ByteBufAllocator local, ByteBufAllocator readable, int readableAbove) {
        super(true);
        this.local = local;
        this.readable = readable;
        this.readableAbove = readableAbove;
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return readable != null && initialCapacity > readableAbove
                ? readable.directBuffer(initialCapacity, maxCapacity) : local.directBuffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return local.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }
}
