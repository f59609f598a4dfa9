package io.reactorrdma.memory;

import io.reactorrdma.config.AllocatorConfig;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.ProtectionDomain;

import java.lang.ref.Cleaner;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * Registered memory of one access kind, allocated like a general-purpose allocator (paper §5.2):
 * <ul>
 *   <li>sizes up to 64 KiB round up to a size class and come from the calling thread's cache
 *       (no lock, no allocation), which refills from and flushes to a per-class pool in batches;</li>
 *   <li>larger sizes up to the block size take a run of whole 8 KiB pages, from the thread's
 *       bounded cache of freed runs or, best fit, from the blocks' free pages;</li>
 *   <li>larger still get a region of their own;</li>
 *   <li>blocks are registered when acquired and deregistered when released, with empty blocks kept
 *       up to {@link AllocatorConfig#retainedBytes()}, so a steady workload registers nothing.</li>
 * </ul>
 * Any thread may free any chunk; the chunk then joins the freeing thread's cache.
 * A chunk's region, address and keys are fields of the chunk: lookup is O(1).
 *
 * <p>A pool without thread caches ({@link RegisteredAllocator#openDestinationPool}, one per
 * engine) serves every size up to the block size as whole pages from its blocks, under the
 * block lock, and gives them straight back: it is used once per rendezvous message, allocated on
 * the I/O thread and freed wherever the application releases the message, and it ends with its
 * engine, so nothing may stay behind in threads' caches. Such a pool is also <em>trimmed</em>: an
 * empty block beyond {@link AllocatorConfig#destinationRetainedBytes()} is not released when it
 * empties but by its owner's periodic {@link #trim()}, once it has stayed empty from one trim to the
 * next — several large messages in flight then re-register nothing, and an idle pool is back at
 * its retained bytes by the second trim after its last message. The shared pools release at once
 * (no one trims them; their larger retained bound and the threads' caches absorb bursts).
 */
public final class RegisteredPool implements AutoCloseable {

    private static final Logger LOG = Loggers.getLogger(RegisteredPool.class);

    private final String name;
    /** The protection domain of every block: read by {@link Chunk#protectionDomain()} on the send path. */
    final ProtectionDomain pd;
    private final AllocatorConfig config;
    private final BlockSource source;
    private final SizeClassPool[] pools = new SizeClassPool[SizeClasses.COUNT];
    /** The threads' caches, or null for a pool that serves everything from its blocks. */
    private final ThreadLocal<ThreadCache> caches;
    /** The cleanups of the threads' caches not yet run: run (as no-ops) at close, so the cleaner drops them. */
    private final Set<Cleaner.Cleanable> cacheCleanups = ConcurrentHashMap.newKeySet();
    /** Run once when the blocks are released (close), or null. */
    private final Runnable onReleased;
    private final LongAdder liveBuffers = new LongAdder();
    private final LongAdder liveBytes = new LongAdder();
    private volatile boolean closed;
    private final AtomicBoolean released = new AtomicBoolean();

    public RegisteredPool(String name, ProtectionDomain pd, int access, AllocatorConfig config) {
        this(name, pd, access, config, true, null);
    }

    /**
     * @param threadCaches false for a pool that serves every size up to a block from its blocks and
     *                     releases empty blocks beyond the bound only in {@link #trim()}
     */
    RegisteredPool(String name, ProtectionDomain pd, int access, AllocatorConfig config, boolean threadCaches, Runnable onReleased) {
        DirectMemoryAccess.require();
        this.name = name;
        this.onReleased = onReleased;
        this.pd = pd;
        this.config = config;
        this.source = new BlockSource(pd, AccessFlags.validate(access), config.blockSize(), config.retainedBytes(), !threadCaches);
        for (int c = 0; c < SizeClasses.COUNT; c++) {
            pools[c] = new SizeClassPool(this, source, c);
        }
        int cacheBytes = config.threadCacheBytesPerClass();
        int pageRunBytes = config.threadCachePageRunBytes();
        int blockPages = source.blockPages();
        this.caches = threadCaches
                ? ThreadLocal.withInitial(() -> ThreadCache.register(this, pools, source, cacheBytes, pageRunBytes, blockPages))
                : null;
    }

    /** The pool's name, for messages and metrics ({@code local} or {@code remote-writable}). */
    public String name() {
        return name;
    }

    /** The protection domain every chunk of this pool is registered in. */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** The {@link AccessFlags} every chunk of this pool is registered with. */
    public int access() {
        return source.access();
    }

    /**
     * Allocates {@code size} bytes of registered memory.
     *
     * @throws IllegalArgumentException for a size ≤ 0 or above {@link AllocatorConfig#maxAllocation()}
     * @throws IllegalStateException    after {@link #close()}
     */
    public Chunk allocate(int size) {
        if (size <= 0 || size > config.maxAllocation()) {
            throw new IllegalArgumentException("cannot allocate " + size + " bytes from the " + name + " pool: sizes are 1.."
                    + config.maxAllocation() + " (AllocatorConfig.withMaxAllocation)");
        }
        return allocateAtLeast(size);
    }

    /** As {@link #allocate} but also takes 0 (Netty asks for empty buffers). */
    Chunk allocateAtLeast(int size) {
        if (closed) {
            throw new IllegalStateException("the " + name + " registered pool is closed");
        }
        if (size > config.maxAllocation()) {
            throw new IllegalArgumentException("cannot allocate " + size + " bytes from the " + name + " pool: the maximum is "
                    + config.maxAllocation() + " (AllocatorConfig.withMaxAllocation)");
        }
        Chunk c;
        if (caches == null && size <= config.blockSize()) {
            c = takePages((Math.max(1, size) + SizeClasses.PAGE_SIZE - 1) / SizeClasses.PAGE_SIZE);
        } else if (size <= SizeClasses.MAX_SIZE_CLASS) {
            int sizeClass = SizeClasses.classOf(Math.max(1, size));
            c = caches.get().pop(sizeClass, pools[sizeClass]);
        } else if (size <= config.blockSize()) {
            int pages = (size + SizeClasses.PAGE_SIZE - 1) / SizeClasses.PAGE_SIZE;
            c = caches.get().pageRuns.take(pages);
            if (c == null) {
                c = takePages(pages);
            }
        } else {
            Block b = source.dedicated(size);
            c = new Chunk(this, b, 0, size, -2, null, 0);
        }
        c.requested = size;
        c.inUse = true;
        liveBuffers.increment();
        liveBytes.add(size);
        return c;
    }

    /** A page run from the blocks, when the thread's cache has none that fits. */
    private Chunk takePages(int pages) {
        int[] firstPage = new int[1];
        Block b = source.takePages(pages, firstPage);
        int first = firstPage[0];
        return new Chunk(this, b, first * SizeClasses.PAGE_SIZE, pages * SizeClasses.PAGE_SIZE, -1, null, first);
    }

    /**
     * Gives a chunk back; any thread may do it, once.
     *
     * @throws IllegalArgumentException for a chunk of another pool
     * @throws IllegalStateException    for a chunk already freed
     */
    public void free(Chunk c) {
        if (c.owner != this) {
            throw new IllegalArgumentException(c + " belongs to the " + c.owner.name + " pool, not to " + name + "; free it there");
        }
        if (!c.inUse) {
            throw new IllegalStateException("double release: " + c + " was already given back to the " + name + " pool");
        }
        c.inUse = false;
        liveBuffers.decrement();
        liveBytes.add(-c.requested);
        if (closed) {
            if (c.sizeClass == -2) {
                source.releaseDedicated(c.block);
            }
            freeAfterClose();
            return;
        }
        if (caches == null && c.sizeClass == -1) {
            source.givePages(c.block, c.slot, c.capacity / SizeClasses.PAGE_SIZE);
        } else if (c.sizeClass >= 0) {
            caches.get().push(c, pools[c.sizeClass]);
        } else if (c.sizeClass == -1) {
            caches.get().pageRuns.put(c, source);
        } else {
            source.releaseDedicated(c.block);
        }
    }

    private void freeAfterClose() {
        if (liveBuffers.sum() == 0 && released.compareAndSet(false, true)) {
            releaseAll();
            LOG.info("registered pool {}: the last live buffer came back after close; all blocks released", name);
        }
    }

    /** A thread cache's cleanup was registered ({@code add}) or has run. */
    void tracked(Cleaner.Cleanable cleanup, boolean add) {
        if (add) {
            cacheCleanups.add(cleanup);
        } else if (cleanup != null) {
            cacheCleanups.remove(cleanup);
        }
    }

    private void releaseAll() {
        source.releaseAll();
        for (Cleaner.Cleanable c : cacheCleanups) {
            c.clean(); // closed: the cleanup only forgets the cache, so live threads' caches no longer pin this pool
        }
        if (onReleased != null) {
            onReleased.run();
        }
    }

    /**
     * Releases the empty blocks beyond the retained bytes that have stayed empty since the previous
     * call (a block taken from in between stays). The owner of a destination pool calls it
     * periodically (the engine: every {@code EngineConfig.heartbeatInterval()}, default 1 s); on the
     * shared pools, which release at once, and on a closed pool (whose blocks go with its last live
     * buffer) it does nothing. Takes the pool's block lock once and allocates nothing.
     *
     * @return the number of blocks released
     */
    public int trim() {
        return closed ? 0 : source.trim();
    }

    public AllocatorStatistics statistics() {
        return new AllocatorStatistics(source.registeredBytes(), source.peakRegisteredBytes(), source.blocks(),
                source.registrations(), source.deregistrations(), liveBuffers.sum(), liveBytes.sum());
    }

    public boolean isClosed() {
        return closed;
    }

    /**
     * Closes the pool: new allocations fail. With no live buffers every block is released now;
     * otherwise the live buffers are reported (count and bytes) and their memory stays registered
     * until the last of them is released — never freed under a live buffer.
     *
     * @return the number of live buffers at close (0 when everything was released)
     */
    public long closeAndReport() {
        if (closed) {
            return liveBuffers.sum();
        }
        closed = true;
        long live = liveBuffers.sum();
        if (live == 0) {
            if (released.compareAndSet(false, true)) {
                releaseAll();
            }
            return 0;
        }
        LOG.warn("registered pool {} closed with {} live buffers ({} bytes); their memory stays "
                + "registered until they are released", name, live, liveBytes.sum());
        return live;
    }

    @Override
    public void close() {
        closeAndReport();
    }

    @Override
    public String toString() {
        return "RegisteredPool{" + name + ", " + AccessFlags.toString(access()) + ", " + statistics() + "}";
    }
}
