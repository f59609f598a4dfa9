package io.reactorrdma.memory;

import io.netty.util.internal.PlatformDependent;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.ProtectionDomain;

import java.nio.ByteBuffer;

/**
 * One allocation of the registered allocator: a slot of a size-class run, pages of a block, or a
 * dedicated region. Slot chunks are created once per slot and reused, with their buffer view, and
 * so are page runs while they stay in a thread's {@link PageRunCache}, so that an allocation from a
 * thread cache allocates nothing.
 *
 * <p>A {@link RegisteredByteBuf} reads and writes a chunk by its {@link #memoryAddress()}; its
 * last release gives the chunk back.
 */
public final class Chunk {

    final RegisteredPool owner;
    final Block block;
    /** Byte offset of this chunk in its block. */
    final int offset;
    /** Usable bytes (the size class, or the page-rounded size). */
    final int capacity;
    final int sizeClass;
    /** The run this slot belongs to, or null for page and dedicated allocations. */
    final Run run;
    /** The slot in its run, or the first page of a page run. */
    final int slot;
    private final ByteBuffer view;
    /** JVM address of the view's first byte (what Netty calls a buffer's memory address). */
    private final long memoryAddress;
    /** The owning buffer's scratch view ({@code internalNioBuffer}); made on first use, reused with the chunk. */
    private ByteBuffer internalView;
    /** Bytes the caller asked for; set on every allocation. */
    int requested;
    boolean inUse;
    /** The next run in a {@link PageRunCache} bin while this page run is cached there. */
    Chunk nextCached;

    Chunk(RegisteredPool owner, Block block, int offset, int capacity, int sizeClass, Run run, int slot) {
        this.owner = owner;
        this.block = block;
        this.offset = offset;
        this.capacity = capacity;
        this.sizeClass = sizeClass;
        this.run = run;
        this.slot = slot;
        this.view = block.memory.slice(offset, capacity).order(java.nio.ByteOrder.nativeOrder());
        this.memoryAddress = PlatformDependent.directBufferAddress(view);
    }

    /** The memory: index 0 is {@link #address()}, limit the requested size. */
    public ByteBuffer buffer() {
        view.clear().limit(requested);
        return view;
    }

    /** The pool this chunk came from: whose access flags and keys cover it. */
    public RegisteredPool pool() {
        return owner;
    }

    /** The JVM address of the chunk's first byte (not the provider's: that is {@link #address()}). */
    public long memoryAddress() {
        return memoryAddress;
    }

    /** A new view of the whole chunk (position 0, limit its capacity), for a caller that keeps it. */
    ByteBuffer viewDuplicate() {
        return view.duplicate().clear();
    }

    /** The owning buffer's scratch view of the whole chunk: reused, so valid only until the next call. */
    ByteBuffer internalView() {
        ByteBuffer v = internalView;
        if (v == null) {
            v = internalView = view.duplicate();
        }
        return v;
    }

    /** The region this chunk lies in. */
    public MemoryRegion region() {
        return block.region;
    }

    /** The chunk's address in the provider's address space (for scatter/gather entries and rkeys). */
    public long address() {
        return block.region.address() + offset;
    }

    /** The protection domain the chunk's region belongs to: a queue pair may use the keys only within it. */
    public ProtectionDomain protectionDomain() {
        return owner.pd;
    }

    public int lkey() {
        return block.region.lkey();
    }

    public int rkey() {
        return block.region.rkey();
    }

    /** Bytes the caller asked for. */
    public int size() {
        return requested;
    }

    /** Bytes the chunk really spans (at least {@link #size()}). */
    public int capacity() {
        return capacity;
    }

    @Override
    public String toString() {
        return "Chunk{addr=0x" + Long.toHexString(address()) + ", size=" + requested + ", capacity=" + capacity
                + ", key=0x" + Integer.toHexString(lkey()) + (inUse ? "" : ", free") + "}";
    }
}
