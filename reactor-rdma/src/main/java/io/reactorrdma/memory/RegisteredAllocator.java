package io.reactorrdma.memory;

import io.reactorrdma.verbs.ProtectionDomain;

/**
 * bemalloc: the registered-memory allocator of one protection domain (DESIGN.md §3, paper §5.2).
 *
 * <p>Two pools, so that a peer's rkey never opens send buffers to remote writes:
 * <ul>
 *   <li>{@link #local()} — registered {@code LOCAL_WRITE} only: send buffers (the NIC reads them)
 *       and receive buffers (the NIC writes them for a SEND); no peer can WRITE into them, because
 *       their regions lack {@code REMOTE_WRITE}. {@link #byteBufAllocator()} serves from it.</li>
 *   <li>{@link #remoteWritable()} — {@code LOCAL_WRITE | REMOTE_WRITE}: rendezvous destinations,
 *       the only memory whose rkey is handed to peers.</li>
 * </ul>
 */
public final class RegisteredAllocator implements AutoCloseable {

    private final ProtectionDomain pd;
    private final RegisteredPool local;
    private final RegisteredPool remoteWritable;
    private final RegisteredByteBufAllocator byteBufAllocator;

    public RegisteredAllocator(ProtectionDomain pd, AllocatorConfig config) {
        this.pd = pd;
        this.local = new RegisteredPool("local", pd, AllocatorConfig.LOCAL_ACCESS, config);
        this.remoteWritable = new RegisteredPool("remote-writable", pd, AllocatorConfig.REMOTE_WRITABLE_ACCESS, config);
        this.byteBufAllocator = new RegisteredByteBufAllocator(local);
    }

    public RegisteredAllocator(ProtectionDomain pd) {
        this(pd, AllocatorConfig.defaults());
    }

    /** The protection domain every region of this allocator belongs to: queue pairs using its memory must share it. */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** Send and receive buffers: registered for the local NIC only. */
    public RegisteredPool local() {
        return local;
    }

    /** Rendezvous destinations: peers may WRITE into these. */
    public RegisteredPool remoteWritable() {
        return remoteWritable;
    }

    /** Netty's view of {@link #local()}: what {@code DuplexConnection.alloc()} returns. */
    public RegisteredByteBufAllocator byteBufAllocator() {
        return byteBufAllocator;
    }

    /** Live buffers of both pools. */
    public long liveBuffers() {
        return local.statistics().liveBuffers() + remoteWritable.statistics().liveBuffers();
    }

    /**
     * Closes both pools; live buffers are reported and keep their memory until released.
     *
     * @return live buffers at close
     */
    public long closeAndReport() {
        return local.closeAndReport() + remoteWritable.closeAndReport();
    }

    @Override
    public void close() {
        closeAndReport();
    }
}
