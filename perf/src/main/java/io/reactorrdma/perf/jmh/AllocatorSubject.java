package io.reactorrdma.perf.jmh;

import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.reactorrdma.config.AllocatorConfig;
import io.reactorrdma.memory.RegisteredAllocator;
import io.reactorrdma.perf.cli.Log;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One allocator under test in {@link AllocatorBenchmark}: allocate a direct buffer of a size, touch
 * it, free it. Each kind is built fresh per JMH trial (one fork holds one kind, so the call sites
 * stay monomorphic and the kinds do not share JIT profiles or memory).
 *
 * <p>Every buffer is touched on allocation (an int at index 0 and a byte at the last index, as the
 * rpmalloc benchmark does), so memory an allocator hands out is really committed and no allocator
 * can win by handing out memory nobody writes.
 */
abstract class AllocatorSubject implements AutoCloseable {

    /** The {@code allocator} parameter values, in report order. */
    static final List<String> KINDS = List.of("registered", "netty-pooled", "netty-adaptive", "netty-unpooled", "jdk-direct");
    /** Extra kinds the JMH benchmark accepts but the report does not run by default. */
    static final List<String> EXTRA_KINDS = List.of("netty-pooled-nocache");

    final String kind;

    AllocatorSubject(String kind) {
        this.kind = kind;
    }

    static AllocatorSubject create(String kind) {
        switch (kind) {
            case "registered":
                return new Registered();
            case "netty-pooled":
                // Thread caches on every thread: what Netty's event-loop threads get. Netty 4.2 gives them
                // only to FastThreadLocalThreads by default (io.netty.allocator.useCacheForAllThreads=false),
                // and JMH's threads are plain threads; without this the baseline would be artificially slow.
                return new NettyByteBufs(kind, new PooledByteBufAllocator(true, PooledByteBufAllocator.defaultNumHeapArena(),
                        PooledByteBufAllocator.defaultNumDirectArena(), PooledByteBufAllocator.defaultPageSize(),
                        PooledByteBufAllocator.defaultMaxOrder(), PooledByteBufAllocator.defaultSmallCacheSize(),
                        PooledByteBufAllocator.defaultNormalCacheSize(), true));
            case "netty-pooled-nocache":
                // Literally new PooledByteBufAllocator(true): on a non-event-loop thread in 4.2 it has no thread cache.
                return new NettyByteBufs(kind, new PooledByteBufAllocator(true));
            case "netty-adaptive":
                // (preferDirect, useCacheForNonEventLoopThreads): the magazines' thread-local caches on every thread,
                // for the same reason as netty-pooled.
                return new NettyByteBufs(kind, new AdaptiveByteBufAllocator(true, true));
            case "netty-unpooled":
                return new NettyByteBufs(kind, new UnpooledByteBufAllocator(true));
            case "jdk-direct":
                return new JdkDirect();
            default:
                throw new IllegalArgumentException("unknown allocator '" + kind + "'; use one of "
                        + String.join(", ", KINDS) + " (or " + String.join(", ", EXTRA_KINDS) + ")");
        }
    }

    static String allKinds() {
        return Arrays.asList(KINDS, EXTRA_KINDS).stream().flatMap(List::stream).collect(Collectors.joining(", "));
    }

    /** A direct buffer of exactly {@code size} usable bytes (size ≥ 16), already touched. */
    abstract Object allocate(int size);

    /** A direct buffer of exactly {@code size} bytes from {@code bufs}, written at both ends (what {@link #allocate} promises). */
    static ByteBuf touchedDirectBuffer(io.netty.buffer.ByteBufAllocator bufs, int size) {
        ByteBuf b = bufs.directBuffer(size, size);
        b.setInt(0, size);
        b.setByte(size - 1, 1);
        return b;
    }

    /** Gives {@code buffer} back (for jdk-direct: drops it; the GC and the Cleaner free it later). */
    abstract void free(Object buffer);

    /**
     * Bytes of memory the allocator itself says it holds now (registered: bytes registered with the
     * provider; Netty: its metric's usedDirectMemory, i.e. the arenas' chunks or the live unpooled
     * buffers); -1 where it keeps no such count (jdk-direct).
     */
    abstract long ownBytes();

    /** The allocator's own peak, where it tracks one exactly (registered); -1 otherwise (then sampled). */
    long ownPeakBytes() {
        return -1;
    }

    /**
     * What the peak sampler reads every millisecond: {@link #ownBytes()}, except where the allocator
     * keeps an exact peak itself (registered: reading its statistics takes the block source's lock,
     * which the allocator holds while it registers a block, so sampling it would perturb the run).
     */
    long sampledOwnBytes() {
        return ownBytes();
    }

    /** A line of allocator-specific figures for the trial's summary. */
    String details() {
        return "";
    }

    @Override
    public void close() {
    }

    /** bemalloc through its Netty face, as {@code DuplexConnection.alloc()} hands it out. */
    static final class Registered extends AllocatorSubject {
        private final VerbsContext context;
        private final RegisteredAllocator allocator;
        private final io.reactorrdma.memory.RegisteredByteBufAllocator bufs;

        Registered() {
            super("registered");
            context = SoftContext.openLoopback(SoftConfig.defaults());
            allocator = new RegisteredAllocator(context.allocPd(), config());
            bufs = allocator.byteBufAllocator();
        }

        /**
         * AllocatorConfig.defaults(), with any of {@code -Dallocbench.registered.blockSize},
         * {@code .retainedBytes}, {@code .threadCacheBytesPerClass}, {@code .threadCachePageRunBytes} (bytes) applied: for experiments
         * with the allocator's tunables (pass them with JMH's -jvmArgsAppend). The report uses the defaults.
         */
        static AllocatorConfig config() {
            AllocatorConfig c = AllocatorConfig.defaults();
            String v;
            if ((v = System.getProperty("allocbench.registered.blockSize")) != null) {
                c = c.withBlockSize(Integer.parseInt(v));
            }
            if ((v = System.getProperty("allocbench.registered.retainedBytes")) != null) {
                c = c.withRetainedBytes(Long.parseLong(v));
            }
            if ((v = System.getProperty("allocbench.registered.threadCacheBytesPerClass")) != null) {
                c = c.withThreadCacheBytesPerClass(Integer.parseInt(v));
            }
            if ((v = System.getProperty("allocbench.registered.threadCachePageRunBytes")) != null) {
                c = c.withThreadCachePageRunBytes(Integer.parseInt(v));
            }
            return c;
        }

        @Override
        Object allocate(int size) {
            return touchedDirectBuffer(bufs, size);
        }

        @Override
        void free(Object buffer) {
            ((ByteBuf) buffer).release();
        }

        @Override
        long ownBytes() {
            return allocator.local().statistics().registeredBytes();
        }

        @Override
        long ownPeakBytes() {
            return allocator.local().statistics().peakRegisteredBytes();
        }

        @Override
        long sampledOwnBytes() {
            return -1; // the exact peakRegisteredBytes is read once at the end instead
        }

        @Override
        String details() {
            return allocator.local().statistics() + " "
                    + (AllocatorConfig.defaults().toString().equals(config().toString()) ? "" : config());
        }

        @Override
        public void close() {
            long live = allocator.closeAndReport();
            if (live != 0) {
                Log.info("registered allocator closed with " + live + " live buffers");
            }
            try {
                context.close();
            } catch (Exception e) {
                Log.info("closing the soft context failed: " + e);
            }
        }
    }

    /** A Netty allocator's direct buffers. */
    static final class NettyByteBufs extends AllocatorSubject {
        private final io.netty.buffer.ByteBufAllocator bufs;
        private final io.netty.buffer.ByteBufAllocatorMetric metric;

        NettyByteBufs(String kind, io.netty.buffer.ByteBufAllocator bufs) {
            super(kind);
            this.bufs = bufs;
            this.metric = bufs instanceof io.netty.buffer.ByteBufAllocatorMetricProvider
                    ? ((io.netty.buffer.ByteBufAllocatorMetricProvider) bufs).metric() : null;
        }

        @Override
        Object allocate(int size) {
            return touchedDirectBuffer(bufs, size);
        }

        @Override
        void free(Object buffer) {
            ((ByteBuf) buffer).release();
        }

        @Override
        long ownBytes() {
            return metric == null ? -1 : metric.usedDirectMemory();
        }

        @Override
        String details() {
            return bufs instanceof PooledByteBufAllocator
                    ? "arenas=" + ((PooledByteBufAllocator) bufs).metric().numDirectArenas()
                    + " chunkSize=" + ((PooledByteBufAllocator) bufs).metric().chunkSize()
                    : "";
        }
    }

    /** {@code ByteBuffer.allocateDirect}; "free" is dropping the reference. */
    static final class JdkDirect extends AllocatorSubject {
        JdkDirect() {
            super("jdk-direct");
        }

        @Override
        Object allocate(int size) {
            ByteBuffer b = ByteBuffer.allocateDirect(size);
            b.putInt(0, size);
            b.put(size - 1, (byte) 1);
            return b;
        }

        @Override
        void free(Object buffer) {
            // nothing: the reference is dropped by the caller, the GC finds the buffer and its Cleaner frees it
        }

        @Override
        long ownBytes() {
            return -1;
        }
    }
}
