package io.reactorrdma.memory;

import io.netty.buffer.AbstractByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.internal.PlatformDependent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ScatteringByteChannel;

/**
 * A Netty direct buffer in a {@link Chunk} of registered memory, read and written by address.
 *
 * <p>One object per buffer and nothing else: the chunk (and its {@code ByteBuffer} view) is the
 * pool's and is reused, the reference count is a field of this object. Netty's
 * {@code UnpooledUnsafeDirectByteBuf}, which this class replaced, brought a {@code RefCnt} object
 * and a sliced {@code DirectByteBuffer} with every buffer (~150 B where this is ~56 B), and a
 * frame's round trip allocates four buffers.
 *
 * <p>The object itself is not recycled, on purpose: a recycled object would be the same object a
 * stale reference still holds, so a {@code release()} or read through the stale reference would
 * act on the new owner's buffer instead of failing. A fresh object per buffer keeps the old
 * promise — a released buffer fails with {@link IllegalReferenceCountException} however its memory
 * is used afterwards.
 *
 * <p>A capacity change moves the bytes to a new chunk of the pool and frees the old one. The last
 * {@link #release()} gives the chunk back, on whichever thread releases.
 */
final class RegisteredByteBuf extends AbstractByteBuf {

    private static final VarHandle REF_CNT;
    /** Word access is used where the platform allows unaligned reads (x86, aarch64), else byte access. */
    private static final boolean UNALIGNED = PlatformDependent.isUnaligned();
    private static final boolean SWAP = !PlatformDependent.BIG_ENDIAN_NATIVE_ORDER;
    /** Stream transfers go through a heap array of at most this many bytes at a time. */
    private static final int DEFAULT_STREAM_CHUNK = 8192;

    static {
        try {
            REF_CNT = MethodHandles.lookup().findVarHandle(RegisteredByteBuf.class, "refCnt", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final RegisteredByteBufAllocator alloc;
    private Chunk chunk;
    /** JVM address of index 0 (the chunk's {@link Chunk#memoryAddress()}). */
    private long address;
    private int capacity;
    @SuppressWarnings("unused") // through REF_CNT
    private volatile int refCnt;

    RegisteredByteBuf(RegisteredByteBufAllocator alloc, Chunk chunk, int maxCapacity) {
        super(maxCapacity);
        this.alloc = alloc;
        this.chunk = chunk;
        this.address = chunk.memoryAddress();
        this.capacity = chunk.size();
        REF_CNT.setRelease(this, 1);
    }

    /** The chunk the buffer lives in now. */
    Chunk chunk() {
        return chunk;
    }

    // ---- reference counting --------------------------------------------------------------

    @Override
    public int refCnt() {
        return (int) REF_CNT.getAcquire(this);
    }

    @Override
    public ByteBuf retain() {
        return retain(1);
    }

    @Override
    public ByteBuf retain(int increment) {
        if (increment <= 0) {
            throw new IllegalArgumentException("increment: " + increment + " (expected: > 0)");
        }
        for (;;) {
            int n = (int) REF_CNT.getVolatile(this);
            if (n == 0 || n > Integer.MAX_VALUE - increment) {
                throw new IllegalReferenceCountException(n, increment);
            }
            if (REF_CNT.compareAndSet(this, n, n + increment)) {
                return this;
            }
        }
    }

    @Override
    public boolean release() {
        return release(1);
    }

    @Override
    public boolean release(int decrement) {
        if (decrement <= 0) {
            throw new IllegalArgumentException("decrement: " + decrement + " (expected: > 0)");
        }
        for (;;) {
            int n = (int) REF_CNT.getVolatile(this);
            if (n < decrement) {
                throw new IllegalReferenceCountException(n, -decrement);
            }
            if (REF_CNT.compareAndSet(this, n, n - decrement)) {
                if (n == decrement) {
                    chunk.owner.free(chunk);
                    return true;
                }
                return false;
            }
        }
    }

    @Override
    public ByteBuf touch() {
        return this;
    }

    @Override
    public ByteBuf touch(Object hint) {
        return this;
    }

    // ---- shape ---------------------------------------------------------------------------

    @Override
    public int capacity() {
        return capacity;
    }

    /** Moves the bytes (up to the smaller capacity) to a new chunk of the pool and frees the old one. */
    @Override
    public ByteBuf capacity(int newCapacity) {
        checkNewCapacity(newCapacity);
        int old = capacity;
        if (newCapacity == old) {
            return this;
        }
        Chunk next = chunk.owner.allocateAtLeast(newCapacity);
        if (newCapacity < old) {
            trimIndicesToCapacity(newCapacity);
        }
        int keep = Math.min(old, newCapacity);
        if (keep > 0) {
            PlatformDependent.copyMemory(address, next.memoryAddress(), keep);
        }
        Chunk before = chunk;
        chunk = next;
        address = next.memoryAddress();
        capacity = newCapacity;
        before.owner.free(before);
        return this;
    }

    @Override
    public ByteBufAllocator alloc() {
        return alloc;
    }

    @Override
    @SuppressWarnings("deprecation")
    public ByteOrder order() {
        return ByteOrder.BIG_ENDIAN;
    }

    @Override
    public ByteBuf unwrap() {
        return null;
    }

    @Override
    public boolean isDirect() {
        return true;
    }

    @Override
    public boolean isContiguous() {
        return true;
    }

    @Override
    public boolean hasArray() {
        return false;
    }

    @Override
    public byte[] array() {
        throw new UnsupportedOperationException("direct buffer");
    }

    @Override
    public int arrayOffset() {
        throw new UnsupportedOperationException("direct buffer");
    }

    @Override
    public boolean hasMemoryAddress() {
        return true;
    }

    @Override
    public long memoryAddress() {
        ensureAccessible();
        return address;
    }

    // ---- NIO views (allocate only when asked) ---------------------------------------------

    @Override
    public int nioBufferCount() {
        return 1;
    }

    @Override
    public ByteBuffer nioBuffer(int index, int length) {
        checkIndex(index, length);
        ByteBuffer d = chunk.viewDuplicate();
        d.position(index).limit(index + length);
        return d.slice();
    }

    @Override
    public ByteBuffer internalNioBuffer(int index, int length) {
        checkIndex(index, length);
        ByteBuffer d = chunk.internalView();
        d.clear().position(index).limit(index + length);
        return d;
    }

    @Override
    public ByteBuffer[] nioBuffers(int index, int length) {
        return new ByteBuffer[] {nioBuffer(index, length)};
    }

    // ---- primitive access (Netty checks bounds and accessibility before these) ---------------

    @Override
    protected byte _getByte(int index) {
        return PlatformDependent.getByte(address + index);
    }

    @Override
    protected short _getShort(int index) {
        if (UNALIGNED) {
            short v = PlatformDependent.getShort(address + index);
            return SWAP ? Short.reverseBytes(v) : v;
        }
        return (short) (_getByte(index) << 8 | _getByte(index + 1) & 0xff);
    }

    @Override
    protected short _getShortLE(int index) {
        return Short.reverseBytes(_getShort(index));
    }

    @Override
    protected int _getUnsignedMedium(int index) {
        return (_getByte(index) & 0xff) << 16 | (_getByte(index + 1) & 0xff) << 8 | _getByte(index + 2) & 0xff;
    }

    @Override
    protected int _getUnsignedMediumLE(int index) {
        return _getByte(index) & 0xff | (_getByte(index + 1) & 0xff) << 8 | (_getByte(index + 2) & 0xff) << 16;
    }

    @Override
    protected int _getInt(int index) {
        if (UNALIGNED) {
            int v = PlatformDependent.getInt(address + index);
            return SWAP ? Integer.reverseBytes(v) : v;
        }
        return (_getShort(index) & 0xffff) << 16 | _getShort(index + 2) & 0xffff;
    }

    @Override
    protected int _getIntLE(int index) {
        return Integer.reverseBytes(_getInt(index));
    }

    @Override
    protected long _getLong(int index) {
        if (UNALIGNED) {
            long v = PlatformDependent.getLong(address + index);
            return SWAP ? Long.reverseBytes(v) : v;
        }
        return ((long) _getInt(index) & 0xffffffffL) << 32 | (long) _getInt(index + 4) & 0xffffffffL;
    }

    @Override
    protected long _getLongLE(int index) {
        return Long.reverseBytes(_getLong(index));
    }

    @Override
    protected void _setByte(int index, int value) {
        PlatformDependent.putByte(address + index, (byte) value);
    }

    @Override
    protected void _setShort(int index, int value) {
        if (UNALIGNED) {
            PlatformDependent.putShort(address + index, SWAP ? Short.reverseBytes((short) value) : (short) value);
        } else {
            _setByte(index, value >>> 8);
            _setByte(index + 1, value);
        }
    }

    @Override
    protected void _setShortLE(int index, int value) {
        _setShort(index, Short.reverseBytes((short) value));
    }

    @Override
    protected void _setMedium(int index, int value) {
        _setByte(index, value >>> 16);
        _setByte(index + 1, value >>> 8);
        _setByte(index + 2, value);
    }

    @Override
    protected void _setMediumLE(int index, int value) {
        _setByte(index, value);
        _setByte(index + 1, value >>> 8);
        _setByte(index + 2, value >>> 16);
    }

    @Override
    protected void _setInt(int index, int value) {
        if (UNALIGNED) {
            PlatformDependent.putInt(address + index, SWAP ? Integer.reverseBytes(value) : value);
        } else {
            _setShort(index, value >>> 16);
            _setShort(index + 2, value);
        }
    }

    @Override
    protected void _setIntLE(int index, int value) {
        _setInt(index, Integer.reverseBytes(value));
    }

    @Override
    protected void _setLong(int index, long value) {
        if (UNALIGNED) {
            PlatformDependent.putLong(address + index, SWAP ? Long.reverseBytes(value) : value);
        } else {
            _setInt(index, (int) (value >>> 32));
            _setInt(index + 4, (int) value);
        }
    }

    @Override
    protected void _setLongLE(int index, long value) {
        _setLong(index, Long.reverseBytes(value));
    }

    // ---- bulk transfers -----------------------------------------------------------------

    @Override
    public ByteBuf getBytes(int index, ByteBuf dst, int dstIndex, int length) {
        checkDstIndex(index, length, dstIndex, dst.capacity());
        if (length == 0) {
            return this;
        }
        if (dst.hasMemoryAddress()) {
            PlatformDependent.copyMemory(address + index, dst.memoryAddress() + dstIndex, length);
        } else if (dst.hasArray()) {
            PlatformDependent.copyMemory(address + index, dst.array(), dst.arrayOffset() + dstIndex, length);
        } else {
            dst.setBytes(dstIndex, this, index, length);
        }
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, byte[] dst, int dstIndex, int length) {
        checkDstIndex(index, length, dstIndex, dst.length);
        if (length > 0) {
            PlatformDependent.copyMemory(address + index, dst, dstIndex, length);
        }
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, ByteBuffer dst) {
        int length = dst.remaining();
        checkIndex(index, length);
        if (length == 0) {
            return this;
        }
        if (dst.isReadOnly()) {
            throw new ReadOnlyBufferException();
        }
        int pos = dst.position();
        if (dst.isDirect()) {
            PlatformDependent.copyMemory(address + index, PlatformDependent.directBufferAddress(dst) + pos, length);
        } else if (dst.hasArray()) {
            PlatformDependent.copyMemory(address + index, dst.array(), dst.arrayOffset() + pos, length);
        } else {
            dst.put(nioBuffer(index, length));
            return this;
        }
        dst.position(pos + length);
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, OutputStream out, int length) throws IOException {
        checkIndex(index, length);
        byte[] tmp = new byte[Math.min(length, DEFAULT_STREAM_CHUNK)];
        while (length > 0) {
            int n = Math.min(length, tmp.length);
            PlatformDependent.copyMemory(address + index, tmp, 0, n);
            out.write(tmp, 0, n);
            index += n;
            length -= n;
        }
        return this;
    }

    @Override
    public int getBytes(int index, GatheringByteChannel out, int length) throws IOException {
        checkIndex(index, length);
        if (length == 0) {
            return 0;
        }
        return out.write(nioBuffer(index, length));
    }

    @Override
    public int getBytes(int index, FileChannel out, long position, int length) throws IOException {
        checkIndex(index, length);
        if (length == 0) {
            return 0;
        }
        return out.write(nioBuffer(index, length), position);
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuf src, int srcIndex, int length) {
        checkSrcIndex(index, length, srcIndex, src.capacity());
        if (length == 0) {
            return this;
        }
        if (src.hasMemoryAddress()) {
            PlatformDependent.copyMemory(src.memoryAddress() + srcIndex, address + index, length);
        } else if (src.hasArray()) {
            PlatformDependent.copyMemory(src.array(), src.arrayOffset() + srcIndex, address + index, length);
        } else {
            src.getBytes(srcIndex, this, index, length);
        }
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, byte[] src, int srcIndex, int length) {
        checkSrcIndex(index, length, srcIndex, src.length);
        if (length > 0) {
            PlatformDependent.copyMemory(src, srcIndex, address + index, length);
        }
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuffer src) {
        int length = src.remaining();
        checkIndex(index, length);
        if (length == 0) {
            return this;
        }
        int pos = src.position();
        if (src.isDirect()) {
            PlatformDependent.copyMemory(PlatformDependent.directBufferAddress(src) + pos, address + index, length);
        } else if (src.hasArray()) {
            PlatformDependent.copyMemory(src.array(), src.arrayOffset() + pos, address + index, length);
        } else {
            nioBuffer(index, length).put(src);
            return this;
        }
        src.position(pos + length);
        return this;
    }

    @Override
    public int setBytes(int index, InputStream in, int length) throws IOException {
        checkIndex(index, length);
        byte[] tmp = new byte[length];
        int n = in.read(tmp, 0, length);
        if (n > 0) {
            PlatformDependent.copyMemory(tmp, 0, address + index, n);
        }
        return n;
    }

    @Override
    public int setBytes(int index, ScatteringByteChannel in, int length) throws IOException {
        checkIndex(index, length);
        try {
            return in.read(nioBuffer(index, length));
        } catch (ClosedChannelException e) {
            return -1;
        }
    }

    @Override
    public int setBytes(int index, FileChannel in, long position, int length) throws IOException {
        checkIndex(index, length);
        try {
            return in.read(nioBuffer(index, length), position);
        } catch (ClosedChannelException e) {
            return -1;
        }
    }

    @Override
    public ByteBuf copy(int index, int length) {
        checkIndex(index, length);
        ByteBuf copy = alloc.directBuffer(length, maxCapacity());
        try {
            copy.writeBytes(this, index, length);
        } catch (RuntimeException e) {
            copy.release();
            throw e;
        }
        return copy;
    }
}
