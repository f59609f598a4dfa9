package io.reactorrdma.memory;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.util.IllegalReferenceCountException;

/**
 * Netty's {@code ByteBufAllocator} over a registered pool: direct buffers (the default,
 * {@link #buffer()}, {@link #ioBuffer()}) are born in registered memory, so frames and payloads
 * need no copy before an RDMA send. Releasing a buffer's last reference gives its memory back.
 * Netty's leak detector watches these buffers as it watches its own.
 *
 * <p>Heap buffers ({@link #heapBuffer()}) cannot be registered: they are ordinary Netty heap
 * buffers, and a transport that sends one copies it once into registered memory (and counts the copy).
 * {@link #regionOf(ByteBuf)} finds the chunk, region and keys of any buffer allocated here, also
 * through slices and leak-detector wrappers.
 */
public final class RegisteredByteBufAllocator extends AbstractByteBufAllocator {

    private final RegisteredPool pool;

    public RegisteredByteBufAllocator(RegisteredPool pool) {
        super(true);
        this.pool = pool;
    }

    /** The pool direct buffers come from. */
    public RegisteredPool pool() {
        return pool;
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        Chunk chunk = pool.allocateAtLeast(initialCapacity);
        try {
            return toLeakAwareBuffer(new RegisteredByteBuf(this, chunk, maxCapacity));
        } catch (RuntimeException e) {
            pool.free(chunk);
            throw e;
        }
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return toLeakAwareBuffer(new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity));
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }

    /**
     * The registered chunk under {@code buf} (unwrapping slices, duplicates and leak-detector
     * wrappers), or null when the buffer does not live in registered memory. With
     * {@link #addressOf(ByteBuf)} this is what a send path needs to post the buffer without a copy.
     */
    public static Chunk regionOf(ByteBuf buf) {
        ByteBuf b = buf;
        for (int depth = 0; b != null && depth < 16; depth++) {
            if (b instanceof RegisteredByteBuf) {
                return ((RegisteredByteBuf) b).chunk();
            }
            b = b.unwrap();
        }
        return null;
    }

    /**
     * The provider address of {@code buf}'s readable bytes ({@code readerIndex}), or -1 when the
     * buffer is not registered memory.
     */
    public static long addressOf(ByteBuf buf) {
        return addressAt(buf, buf.readerIndex());
    }

    /**
     * The provider address of the byte at {@code index} of {@code buf} (no bounds check), or -1
     * when the buffer is not registered memory.
     */
    public static long addressAt(ByteBuf buf, int index) {
        if (buf instanceof RegisteredByteBuf) {
            if (buf.refCnt() == 0) {
                throw new IllegalReferenceCountException(0); // its memory may be another buffer's now
            }
            return ((RegisteredByteBuf) buf).chunk().address() + index;
        }
        ByteBuf b = buf;
        for (int depth = 0; b != null && depth < 16; depth++) {
            if (b instanceof RegisteredByteBuf) {
                RegisteredByteBuf root = (RegisteredByteBuf) b;
                if (!buf.hasMemoryAddress()) {
                    return -1;
                }
                return root.chunk().address() + (buf.memoryAddress() - root.memoryAddress()) + index;
            }
            b = b.unwrap();
        }
        return -1;
    }

    @Override
    public String toString() {
        return "RegisteredByteBufAllocator{" + pool + "}";
    }
}
