package io.reactorrdma.verbs;

import java.nio.ByteBuffer;

/**
 * Registered memory ({@code struct ibv_mr}) together with the memory itself: providers allocate
 * both at once ({@link ProtectionDomain#allocate(int, int)}).
 *
 * <p>{@link #address()} is the region's base in the provider's address space: scatter/gather
 * entries and remote addresses are {@code address() + offset}. It is the virtual address on
 * hardware and a synthetic one on the soft provider; never dereference it.
 */
public interface MemoryRegion extends AutoCloseable {

    /** Base address of the region (the {@code addr} of {@code ibv_mr}). */
    long address();

    /** Length in bytes. */
    int length();

    /** Key for local scatter/gather entries. */
    int lkey();

    /** Key a peer names in WRITE, WRITE_WITH_IMM and READ requests. */
    int rkey();

    /** The {@link AccessFlags} the region was registered with. */
    int access();

    /**
     * The memory: a direct buffer of {@link #length()} bytes whose index 0 is {@link #address()}.
     * Each call returns a new view (position 0, limit length), so callers may move its position.
     */
    ByteBuffer buffer();

    /** Whether the region is still registered. */
    boolean isValid();

    /**
     * Deregisters the region ({@code ibv_dereg_mr}) and gives the memory back. Peers naming its
     * rkey afterwards get {@link io.reactorrdma.verbs.work.WcStatus#REM_ACCESS_ERR}. Idempotent.
     */
    @Override
    void close();
}
