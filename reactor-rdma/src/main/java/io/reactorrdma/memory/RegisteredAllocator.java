package io.reactorrdma.memory;

import io.reactorrdma.config.AllocatorConfig;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.ProtectionDomain;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * bemalloc: the registered-memory allocator of one protection domain (paper §5.2).
 *
 * <p>Two pools, so that a peer's rkey never opens send buffers to remote writes:
 * <ul>
 *   <li>{@link #local()} — registered {@code LOCAL_WRITE} only: send buffers (the NIC reads them)
 *       and receive buffers (the NIC writes them for a SEND); no peer can WRITE into them, because
 *       their regions lack {@code REMOTE_WRITE}. {@link #byteBufAllocator()} serves from it.</li>
 *   <li>{@link #remoteWritable()} — {@code LOCAL_WRITE | REMOTE_WRITE}, shared by all: for
 *       applications that hand out rkeys themselves.</li>
 *   <li>{@link #openDestinationPool} — {@code LOCAL_WRITE | REMOTE_WRITE}, one per engine (per
 *       peer): rendezvous destinations and direct-write targets, the memory whose rkeys the
 *       engine hands to its peer. Each registers blocks of its own, so the rkey one peer gets
 *       never covers another peer's buffers; sized by {@link AllocatorConfig#destinationBlockSize()}
 *       and {@link AllocatorConfig#destinationRetainedBytes()}, and trimmed by its owner
 *       ({@link RegisteredPool#trim()}).</li>
 *   <li>{@link #openReadablePool} — {@code LOCAL_WRITE | REMOTE_READ}, one per engine (per
 *       peer): the messages that engine's peer pulls (RDMA READ). Blocks of its own, as a
 *       destination pool's, so the rkey one peer gets covers only memory holding messages
 *       addressed to it; never remote-writable.</li>
 *   <li>{@link #remoteReadable()} — {@code LOCAL_WRITE | REMOTE_READ}, shared by all peers: memory
 *       an application chooses to let every connected peer read, such as the tables or tensors it
 *       serves ({@link #remoteReadableByteBufAllocator()}). A message whose large part lies there
 *       is pulled by the peer without a copy; the key of these blocks covers all of them, so keep
 *       nothing there that any peer must not see.</li>
 * </ul>
 */
public final class RegisteredAllocator implements AutoCloseable {

    /** Access of the pool for memory only the local NIC touches: send buffers and receive buffers. */
    static final int LOCAL_ACCESS = AccessFlags.LOCAL_WRITE;
    /** Access of the pool peers may write into: rendezvous destinations. */
    static final int REMOTE_WRITABLE_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;
    /** Access of a pool one peer may READ from: pull-rendezvous sources (never remote-writable). */
    static final int REMOTE_READABLE_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ;

    private final ProtectionDomain pd;
    private final RegisteredPool local;
    private final RegisteredPool remoteWritable;
    private final RegisteredPool remoteReadable;
    private final RegisteredByteBufAllocator byteBufAllocator;
    private final RegisteredByteBufAllocator remoteReadableAllocator;
    private final AllocatorConfig destinationConfig;
    /** Open destination pools, and closed ones whose buffers are not all back yet. */
    private final Set<RegisteredPool> destinationPools = ConcurrentHashMap.newKeySet();
    /** Open readable pools, and closed ones whose buffers are not all back yet. */
    private final Set<RegisteredPool> readablePools = ConcurrentHashMap.newKeySet();
    /** Registrations and deregistrations of destination pools already released, so that the sums only grow. */
    private final LongAdder releasedPoolRegistrations = new LongAdder();
    private final LongAdder releasedPoolDeregistrations = new LongAdder();

    public RegisteredAllocator(ProtectionDomain pd, AllocatorConfig config) {
        this.pd = pd;
        this.local = new RegisteredPool("local", pd, LOCAL_ACCESS, config);
        this.remoteWritable = new RegisteredPool("remote-writable", pd, REMOTE_WRITABLE_ACCESS, config);
        this.remoteReadable = new RegisteredPool("readable by every peer", pd, REMOTE_READABLE_ACCESS, config);
        this.byteBufAllocator = new RegisteredByteBufAllocator(local);
        this.remoteReadableAllocator = new RegisteredByteBufAllocator(remoteReadable);
        this.destinationConfig = config.forDestinations();
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

    /**
     * Memory every connected peer may READ ({@code LOCAL_WRITE | REMOTE_READ}, shared): registered
     * nothing until its first allocation. A message sent over pull rendezvous whose bytes (all but
     * a small head, such as RSocket's frame header and metadata) lie here in one piece is read by
     * the peer where it is: no copy, and the sender is not woken to move it.
     */
    public RegisteredPool remoteReadable() {
        return remoteReadable;
    }

    /**
     * Netty's view of {@link #remoteReadable()}: allocate here what the application serves to many
     * peers and sends often in large pieces (an embedding table, a tensor), then send slices of it.
     */
    public RegisteredByteBufAllocator remoteReadableByteBufAllocator() {
        return remoteReadableAllocator;
    }

    /**
     * A new remote-writable pool for the destinations one peer may write into: it registers
     * nothing until its first allocation, and its blocks are its own. Call its
     * {@link RegisteredPool#trim()} periodically: empty blocks beyond
     * {@link AllocatorConfig#destinationRetainedBytes()} are released only there. Close it when the
     * peer is gone; buffers still live then keep their memory until released, and the pool leaves
     * this allocator's figures once its memory is released.
     */
    public RegisteredPool openDestinationPool(String peer) {
        return openPeerPool("destinations of " + peer, REMOTE_WRITABLE_ACCESS, destinationPools, true);
    }

    /**
     * A new remote-readable pool ({@code LOCAL_WRITE | REMOTE_READ}) for the messages one peer may
     * pull: as {@link #openDestinationPool} (its own blocks, nothing registered before its first
     * allocation, trimmed and closed by its owner), but readable, not writable, by that peer. Any
     * thread may allocate from it; frees take its block lock (no thread caches: its blocks must
     * stay its own).
     */
    public RegisteredPool openReadablePool(String peer) {
        return openPeerPool("readable by " + peer, REMOTE_READABLE_ACCESS, readablePools, false);
    }

    private RegisteredPool openPeerPool(String name, int access, Set<RegisteredPool> pools, boolean countReleased) {
        if (local.isClosed()) {
            throw new IllegalStateException("the registered allocator is closed: no pool " + name);
        }
        RegisteredPool[] self = new RegisteredPool[1];
        RegisteredPool pool = new RegisteredPool(name, pd, access, destinationConfig, false, () -> {
            if (countReleased) {
                AllocatorStatistics last = self[0].statistics();
                releasedPoolRegistrations.add(last.registrations());
                releasedPoolDeregistrations.add(last.deregistrations());
            }
            pools.remove(self[0]);
        });
        self[0] = pool;
        pools.add(pool);
        return pool;
    }

    /** Live buffers of the readable pools (open, and closed ones not yet released). */
    public long readableLiveBuffers() {
        long n = 0;
        for (RegisteredPool p : readablePools) {
            n += p.statistics().liveBuffers();
        }
        return n;
    }

    /** The readable pools' figures added up: those open now and closed ones with live buffers. */
    public AllocatorStatistics readableStatistics() {
        AllocatorStatistics sum = new AllocatorStatistics(0, 0, 0, 0, 0, 0, 0);
        for (RegisteredPool p : readablePools) {
            sum = sum.plus(p.statistics());
        }
        return sum;
    }

    /**
     * The destination pools' figures added up: bytes, blocks and live buffers of the pools open now
     * (and closed ones with live buffers); registrations and deregistrations of all pools ever opened.
     */
    public AllocatorStatistics destinationStatistics() {
        AllocatorStatistics sum = new AllocatorStatistics(0, 0, 0, releasedPoolRegistrations.sum(),
                releasedPoolDeregistrations.sum(), 0, 0);
        for (RegisteredPool p : destinationPools) {
            sum = sum.plus(p.statistics());
        }
        return sum;
    }

    /** Netty's view of {@link #local()}: what {@code DuplexConnection.alloc()} returns. */
    public RegisteredByteBufAllocator byteBufAllocator() {
        return byteBufAllocator;
    }

    /** Live buffers of all pools, the destination and readable pools included. */
    public long liveBuffers() {
        return local.statistics().liveBuffers() + remoteWritable.statistics().liveBuffers() + remoteReadable.statistics().liveBuffers()
                + destinationStatistics().liveBuffers() + readableLiveBuffers();
    }

    /**
     * Closes all pools (destination pools still open included); live buffers are reported and
     * keep their memory until released.
     *
     * @return live buffers at close
     */
    public long closeAndReport() {
        long live = local.closeAndReport() + remoteWritable.closeAndReport() + remoteReadable.closeAndReport();
        for (RegisteredPool p : destinationPools) {
            live += p.closeAndReport();
        }
        for (RegisteredPool p : readablePools) {
            live += p.closeAndReport();
        }
        return live;
    }

    @Override
    public void close() {
        closeAndReport();
    }
}
