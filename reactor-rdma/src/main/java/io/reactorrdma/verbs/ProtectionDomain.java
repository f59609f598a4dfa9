package io.reactorrdma.verbs;

import java.nio.ByteBuffer;

/**
 * A protection domain ({@code struct ibv_pd}): regions and queue pairs of one domain work together;
 * an rkey from another domain is a {@link io.reactorrdma.verbs.work.WcStatus#REM_ACCESS_ERR}.
 */
public interface ProtectionDomain extends AutoCloseable {

    /**
     * Allocates {@code size} bytes of memory and registers it with {@code access}
     * ({@link AccessFlags}). The one way to get memory the soft provider's peers can reach.
     *
     * @throws IllegalArgumentException for a size ≤ 0 or above {@link ProviderCapabilities#maxRegionSize()},
     *                                  or invalid access flags
     * @throws VerbsException           when the provider cannot allocate or register
     */
    MemoryRegion allocate(int size, int access);

    /**
     * Registers caller memory ({@code ibv_reg_mr} on a buffer the caller owns), where the provider
     * declares {@link ProviderCapabilities#canRegisterCallerMemory()}.
     *
     * @throws UnsupportedOperationException where the provider cannot, saying why and what to use
     */
    MemoryRegion register(ByteBuffer directBuffer, int access);

    /** Deallocates the domain ({@code ibv_dealloc_pd}); its regions are deregistered. */
    @Override
    void close();
}
