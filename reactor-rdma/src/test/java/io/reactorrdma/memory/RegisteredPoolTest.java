package io.reactorrdma.memory;

import io.reactorrdma.config.AllocatorConfig;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RegisteredPoolTest {

    private VerbsContext ctx;
    private ProtectionDomain pd;
    private final List<RegisteredPool> pools = new ArrayList<>();

    @BeforeEach
    void open() {
        ctx = SoftContext.openLoopback(SoftConfig.defaults());
        pd = ctx.allocPd();
    }

    @AfterEach
    void close() {
        for (RegisteredPool p : pools) {
            assertThat(p.statistics().liveBuffers()).as("live buffers of %s after the test", p.name()).isZero();
            p.close();
            assertThat(p.statistics().registeredBytes()).as("registered bytes after close").isZero();
        }
        ctx.close();
    }

    private RegisteredPool pool(AllocatorConfig config) {
        RegisteredPool p = new RegisteredPool("test", pd, AccessFlags.LOCAL_WRITE, config);
        pools.add(p);
        return p;
    }

    @Test
    void sizeClassesCoverEverySizeWithBoundedWaste() {
        for (int size = 1; size <= SizeClasses.MAX_SIZE_CLASS; size++) {
            int c = SizeClasses.classOf(size);
            int s = SizeClasses.sizeOf(c);
            assertThat(s).as("class size for %d", size).isGreaterThanOrEqualTo(size);
            if (c > 0) {
                assertThat(SizeClasses.sizeOf(c - 1)).as("previous class for %d", size).isLessThan(size);
            }
            if (size > 128) {
                assertThat((double) s / size).isLessThanOrEqualTo(1.25);
            }
        }
        assertThat(SizeClasses.sizeOf(SizeClasses.COUNT - 1)).isEqualTo(SizeClasses.MAX_SIZE_CLASS);
    }

    @Test
    void chunksLieInTheirRegionAndCarryItsKeys() {
        RegisteredPool p = pool(AllocatorConfig.defaults());
        for (int size : new int[]{1, 100, 4096, 70_000, 1 << 20, 3 << 20, 9 << 20}) {
            Chunk c = p.allocate(size);
            assertThat(c.size()).isEqualTo(size);
            assertThat(c.capacity()).isGreaterThanOrEqualTo(size);
            assertThat(c.lkey()).isEqualTo(c.region().lkey());
            assertThat(c.address()).isBetween(c.region().address(), c.region().address() + c.region().length() - size);
            assertThat(c.buffer().remaining()).isEqualTo(size);
            assertThat(c.region().access()).isEqualTo(AccessFlags.LOCAL_WRITE);
            p.free(c);
        }
    }

    @Test
    void badRequestsAreClearErrors() {
        RegisteredPool p = pool(AllocatorConfig.defaults().withMaxAllocation(1 << 20));
        RegisteredPool other = pool(AllocatorConfig.defaults());
        assertThatThrownBy(() -> p.allocate(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1..");
        assertThatThrownBy(() -> p.allocate(-5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p.allocate((1 << 20) + 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("withMaxAllocation");
        Chunk c = p.allocate(64);
        p.free(c);
        assertThatThrownBy(() -> p.free(c)).isInstanceOf(IllegalStateException.class).hasMessageContaining("double release");
        Chunk foreign = other.allocate(64);
        assertThatThrownBy(() -> p.free(foreign)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("belongs to");
        other.free(foreign);
    }

    @Test
    void closingWithLiveBuffersReportsThemAndKeepsTheirMemoryUntilReleased() {
        RegisteredPool p = new RegisteredPool("closing", pd, AccessFlags.LOCAL_WRITE, AllocatorConfig.defaults());
        Chunk a = p.allocate(100);
        Chunk b = p.allocate(2 << 20);
        assertThat(p.closeAndReport()).isEqualTo(2);
        assertThat(p.statistics().liveBytes()).isEqualTo(100 + (2 << 20));
        assertThatThrownBy(() -> p.allocate(10)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThat(p.statistics().registeredBytes()).as("not freed under live buffers").isPositive();
        a.buffer().put(0, (byte) 1); // still usable memory
        assertThat(a.region().isValid()).isTrue();
        p.free(a);
        assertThat(p.statistics().registeredBytes()).isPositive();
        p.free(b);
        AllocatorStatistics s = p.statistics();
        assertThat(s.registeredBytes()).isZero();
        assertThat(s.deregistrations()).isEqualTo(s.registrations());
    }

    @Test
    void aSteadyWorkloadRegistersNothingAfterWarmUp() {
        RegisteredPool p = pool(AllocatorConfig.defaults());
        Random r = new Random(3);
        Chunk[] window = new Chunk[256];
        long registrationsAfterWarmUp = 0;
        for (int i = 0; i < 800_000; i++) {
            if (i == 400_000) {
                registrationsAfterWarmUp = p.statistics().registrations();
            }
            int slot = r.nextInt(window.length);
            if (window[slot] != null) {
                p.free(window[slot]);
            }
            window[slot] = p.allocate(16 + r.nextInt(64 * 1024));
        }
        assertThat(p.statistics().registrations()).as("registrations in the steady half").isEqualTo(registrationsAfterWarmUp);
        for (Chunk c : window) {
            if (c != null) {
                p.free(c);
            }
        }
    }

    @Test
    void aLargeWorkloadHoldsLittleMoreThanItsLiveBytesAndSettles() {
        // the allocator benchmark's large workload on one thread: 128 live buffers of 64 KiB – 1 MiB,
        // exponential dropoff, the oldest freed at each step. Page runs, best fit, a bounded cache:
        // registered memory stays near the live bytes (size-class runs of large sizes needed 1.76x).
        RegisteredPool p = pool(AllocatorConfig.defaults());
        Random r = new Random(5);
        Chunk[] window = new Chunk[128];
        long live = 0;
        long peakLive = 0;
        long registrationsAfterWarmUp = 0;
        for (int i = 0; i < 400_000; i++) {
            if (i == 200_000) {
                registrationsAfterWarmUp = p.statistics().registrations();
            }
            int slot = i & (window.length - 1);
            if (window[slot] != null) {
                live -= window[slot].size();
                p.free(window[slot]);
            }
            int size = 64 * 1024 + (int) (960 * 1024 * r.nextDouble() * r.nextDouble() * r.nextDouble());
            window[slot] = p.allocate(size);
            live += size;
            peakLive = Math.max(peakLive, live);
        }
        AllocatorStatistics s = p.statistics();
        assertThat((double) s.peakRegisteredBytes() / peakLive).as("peak registered / peak live bytes (%s)", s).isLessThan(1.5);
        assertThat(s.registrations()).as("registrations in the steady half").isEqualTo(registrationsAfterWarmUp);
        for (Chunk c : window) {
            p.free(c);
        }
    }

    @Test
    void pageRunsFreedOnAThreadAreReusedByIt() {
        RegisteredPool p = pool(AllocatorConfig.defaults());
        Chunk a = p.allocate(300_000);
        p.free(a);
        Chunk b = p.allocate(290_000);
        assertThat(b).as("the cached run (37 pages for 36)").isSameAs(a);
        assertThat(b.size()).isEqualTo(290_000);
        assertThat(b.buffer().remaining()).isEqualTo(290_000);
        Chunk c = p.allocate(200_000);
        assertThat(c).as("25 pages cannot take a run of 37").isNotSameAs(a);
        p.free(b);
        p.free(c);
    }

    @Test
    void withoutAPageRunCacheEveryRunGoesBackAndMerges() {
        int block = 1 << 20;
        RegisteredPool p = pool(AllocatorConfig.defaults().withBlockSize(block).withRetainedBytes(0).withThreadCachePageRunBytes(0));
        Chunk a = p.allocate(300_000);
        Chunk b = p.allocate(300_000);
        assertThat(p.statistics().blocks()).isEqualTo(1);
        p.free(a);
        p.free(b);
        assertThat(p.statistics().blocks()).as("the block emptied and was released at once").isZero();
        assertThat(p.statistics().registeredBytes()).isZero();
    }

    @Test
    void threadsThatMissTogetherShareOneNewBlock() throws Exception {
        RegisteredPool p = pool(AllocatorConfig.defaults());
        int threads = 8; // 8 x 512 KiB: exactly one 4 MiB block
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
        java.util.concurrent.ExecutorService exec = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            List<java.util.concurrent.Future<Chunk>> got = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                got.add(exec.submit(() -> {
                    start.await();
                    return p.allocate(512 * 1024);
                }));
            }
            List<Chunk> chunks = new ArrayList<>();
            for (var f : got) {
                chunks.add(f.get(30, TimeUnit.SECONDS));
            }
            assertThat(p.statistics().registrations()).as("one registration at a time; the others wait for its block").isEqualTo(1);
            chunks.forEach(p::free);
        } finally {
            exec.shutdownNow();
        }
    }

    @Test
    void emptyBlocksAreReleasedBeyondTheRetainedBytesAndRegisteredAgainWhenNeeded() {
        int block = 2 << 20; // page allocations (above the 1 MiB size classes), one block each
        RegisteredPool p = pool(AllocatorConfig.defaults().withBlockSize(block).withRetainedBytes(block));
        List<Chunk> big = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            big.add(p.allocate(block));
        }
        assertThat(p.statistics().blocks()).isEqualTo(4);
        assertThat(p.statistics().registrations()).isEqualTo(4);
        big.forEach(p::free);
        AllocatorStatistics s = p.statistics();
        assertThat(s.deregistrations()).as("all but the retained block released").isEqualTo(3);
        assertThat(s.blocks()).isEqualTo(1);
        assertThat(s.registeredBytes()).isEqualTo(block);
        Chunk again = p.allocate(block);
        assertThat(p.statistics().registrations()).as("the retained block is reused").isEqualTo(4);
        Chunk more = p.allocate(block);
        assertThat(p.statistics().registrations()).as("beyond it, a new registration").isEqualTo(5);
        p.free(again);
        p.free(more);
        assertThat(p.statistics().peakRegisteredBytes()).isEqualTo(4L * block);
    }

    @Test
    void aHugeAllocationFreedAfterCloseIsDeregistered() {
        RegisteredPool p = new RegisteredPool("closing-huge", pd, AccessFlags.LOCAL_WRITE, AllocatorConfig.defaults());
        Chunk small = p.allocate(100);
        Chunk huge = p.allocate(10 << 20);
        assertThat(p.closeAndReport()).isEqualTo(2);
        p.free(huge);
        assertThat(p.statistics().registeredBytes()).as("the pooled block stays for the small buffer").isEqualTo(4 << 20);
        p.free(small);
        AllocatorStatistics s = p.statistics();
        assertThat(s.registeredBytes()).isZero();
        assertThat(s.deregistrations()).isEqualTo(s.registrations());
    }

    @Test
    void hugeAllocationsGetARegionOfTheirOwn() {
        RegisteredPool p = pool(AllocatorConfig.defaults());
        Chunk huge = p.allocate(10 << 20);
        assertThat(huge.region().length()).isEqualTo(10 << 20);
        long before = p.statistics().deregistrations();
        p.free(huge);
        assertThat(p.statistics().deregistrations()).isEqualTo(before + 1);
    }

    @Test
    void concurrentAllocationWithCrossThreadFreesKeepsEveryBuffersContents() throws Exception {
        RegisteredPool p = pool(AllocatorConfig.defaults());
        int threads = 4;
        int perThread = 60_000;
        List<BlockingQueue<Chunk>> inboxes = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            inboxes.add(new ArrayBlockingQueue<>(100_000));
        }
        AtomicLong verified = new AtomicLong();
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            workers.add(CompletableFuture.runAsync(() -> {
                Random r = new Random(id);
                Chunk[] mine = new Chunk[64];
                for (int i = 0; i < perThread; i++) {
                    int size = r.nextInt(10) == 0 ? 1 + r.nextInt(2 << 20) : 1 + r.nextInt(16 * 1024);
                    Chunk c = p.allocate(size);
                    stamp(c, id * 1_000_003L + i);
                    int slot = r.nextInt(mine.length);
                    Chunk old = mine[slot];
                    mine[slot] = c;
                    if (old != null) {
                        if (r.nextInt(10) < 3) {
                            inboxes.get((id + 1) % threads).add(old); // freed by another thread
                        } else {
                            check(old);
                            verified.incrementAndGet();
                            p.free(old);
                        }
                    }
                    Chunk foreign;
                    while ((foreign = inboxes.get(id).poll()) != null) {
                        check(foreign);
                        verified.incrementAndGet();
                        p.free(foreign);
                    }
                }
                for (Chunk c : mine) {
                    if (c != null) {
                        check(c);
                        p.free(c);
                    }
                }
            }, java.util.concurrent.Executors.newSingleThreadExecutor()));
        }
        CompletableFuture.allOf(workers.toArray(new CompletableFuture[0])).get(100, TimeUnit.SECONDS);
        for (BlockingQueue<Chunk> q : inboxes) {
            Chunk c;
            while ((c = q.poll()) != null) {
                check(c);
                p.free(c);
            }
        }
        assertThat(verified.get()).isGreaterThan(threads * perThread / 2);
        assertThat(p.statistics().liveBuffers()).isZero();
        assertThat(p.statistics().liveBytes()).isZero();
    }

    /** Writes a pattern derived from {@code tag} over the whole buffer; an overlap with another live buffer would break it. */
    private static void stamp(Chunk c, long tag) {
        ByteBuffer b = c.buffer();
        int n = c.size();
        for (int i = 0; i + 8 <= n; i += 4096) {
            b.putLong(i, tag ^ i);
        }
        if (n >= 8) {
            b.putLong(n - 8, tag * 31);
        } else {
            for (int i = 0; i < n; i++) {
                b.put(i, (byte) tag);
            }
        }
        tags.put(c, tag);
    }

    private static final java.util.concurrent.ConcurrentHashMap<Chunk, Long> tags = new java.util.concurrent.ConcurrentHashMap<>();

    private static void check(Chunk c) {
        long tag = tags.remove(c);
        ByteBuffer b = c.buffer();
        int n = c.size();
        if (n >= 8) {
            for (int i = 0; i + 8 <= n - 8; i += 4096) {
                if (b.getLong(i) != (tag ^ i)) {
                    throw new AssertionError("buffer " + c + " corrupted at " + i);
                }
            }
            if (b.getLong(n - 8) != tag * 31) {
                throw new AssertionError("buffer " + c + " corrupted at its end");
            }
        } else {
            for (int i = 0; i < n; i++) {
                if (b.get(i) != (byte) tag) {
                    throw new AssertionError("buffer " + c + " corrupted");
                }
            }
        }
    }
}
