package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.ffm.abi.VerbsConstants;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaCoreUnavailableException;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaPd;
import io.reactorrdma.verbs.work.tracking.QueuePairUsers;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The SPI's protection domain over rdma-core: allocates page-aligned native memory and registers it, or registers a
 * caller's direct buffer. Regions still open at close are closed with it.
 */
final class FfmProtectionDomain implements ProtectionDomain {

    /** Registered memory starts on a page: an RNIC pins and maps whole pages. */
    private static final long PAGE = 4096;

    private final RdmaPd pd;
    private final long maxRegionSize;
    private final Set<FfmMemoryRegion> regions = ConcurrentHashMap.newKeySet();
    private final RegionBounds bounds = new RegionBounds();
    /** Tells the context the domain is gone. */
    private final Consumer<? super FfmProtectionDomain> forget;
    private volatile boolean closed;
    /** Set by the one {@link #close} that goes on: a concurrent close returns. */
    private final AtomicBoolean closing = new AtomicBoolean();
    /** Native queue pairs in this domain: a close waits for their teardown (past it, the domain is left). */
    private final QueuePairUsers queuePairs = new QueuePairUsers("protection domain");
    private static final Logger LOG = Loggers.getLogger(FfmProtectionDomain.class);

    FfmProtectionDomain(RdmaPd pd, long maxRegionSize, Consumer<? super FfmProtectionDomain> forget) {
        this.pd = pd;
        this.maxRegionSize = maxRegionSize;
        this.forget = forget;
    }

    RdmaPd pd() {
        return pd;
    }

    @Override
    public MemoryRegion allocate(int size, int access) {
        check(size, access);
        Arena arena = Arena.ofShared();
        try {
            MemorySegment memory = arena.allocate(size, PAGE);
            return track(new FfmMemoryRegion(pd.register(memory, ibvAccess(access)), memory, arena, access, this::untrack));
        } catch (RuntimeException e) {
            arena.close();
            throw rethrow(e, size);
        }
    }

    @Override
    public MemoryRegion register(ByteBuffer directBuffer, int access) {
        if (!directBuffer.isDirect()) {
            throw new IllegalArgumentException("only direct buffers can be registered: a heap buffer moves with the GC");
        }
        check(directBuffer.remaining(), access);
        MemorySegment memory = MemorySegment.ofBuffer(directBuffer);
        try {
            return track(new FfmMemoryRegion(pd.register(memory, ibvAccess(access)), memory, null, access, this::untrack));
        } catch (RuntimeException e) {
            throw rethrow(e, directBuffer.remaining());
        }
    }

    private void check(int size, int access) {
        if (closed) {
            throw new IllegalStateException("protection domain is closed");
        }
        AccessFlags.validate(access);
        if (size <= 0 || size > maxRegionSize) {
            throw new IllegalArgumentException("a region's size must be 1.." + maxRegionSize + " bytes, got " + size);
        }
    }

    private FfmMemoryRegion track(FfmMemoryRegion region) {
        regions.add(region);
        bounds.add(region.lkey(), region.address(), region.length());
        return region;
    }

    private void untrack(FfmMemoryRegion region) {
        bounds.remove(region.lkey());
        regions.remove(region);
    }

    /** The domain's regions by lkey, for the inline check of a post. */
    RegionBounds bounds() {
        return bounds;
    }

    /** The SPI's flags as {@code IBV_ACCESS_*} (the same bits, named apart so neither side assumes the other). */
    static int ibvAccess(int access) {
        int ibv = 0;
        if ((access & AccessFlags.LOCAL_WRITE) != 0) {
            ibv |= VerbsConstants.IBV_ACCESS_LOCAL_WRITE;
        }
        if ((access & AccessFlags.REMOTE_WRITE) != 0) {
            ibv |= VerbsConstants.IBV_ACCESS_REMOTE_WRITE;
        }
        if ((access & AccessFlags.REMOTE_READ) != 0) {
            ibv |= VerbsConstants.IBV_ACCESS_REMOTE_READ;
        }
        return ibv;
    }

    /** The native queue pairs in this domain. */
    QueuePairUsers queuePairs() {
        return queuePairs;
    }

    private static RuntimeException rethrow(RuntimeException e, long size) {
        return e instanceof RdmaCoreUnavailableException
                ? new VerbsException("registering " + size + " bytes: " + e.getMessage(), e) : e;
    }

    @Override
    public void close() {
        if (closing.compareAndSet(false, true)) { // one close goes on; another, or a later one, returns
            boolean released = queuePairs.awaitReleasedOrReopen(closing, Duration.ofMillis(FfmContext.TEARDOWN_MILLIS));
            if (!released) {
                closed = true;
                LOG.warn("protection domain closed while {} queue pairs in it were still being destroyed after {} ms (their "
                        + "teardown runs on the connection manager's thread); its native domain and regions are left, not freed",
                        queuePairs.count(), FfmContext.TEARDOWN_MILLIS);
                forget.accept(this);
                return;
            }
            closed = true;
            try {
                for (FfmMemoryRegion r : List.copyOf(regions)) {
                    r.close();
                }
                pd.close();
            } finally {
                forget.accept(this);
            }
        }
    }
}
