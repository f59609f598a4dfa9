package io.reactorrdma.perf.jmh;

import io.reactorrdma.perf.measure.DirectMemorySampler;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The allocator benchmark of the paper's §5.2 evaluation, for bemalloc ({@code registered}) against
 * Netty's direct allocators and {@code ByteBuffer.allocateDirect}.
 *
 * <p><b>One operation</b> = allocate one direct buffer + free one buffer. Each benchmark thread keeps
 * a window of {@link #window} live buffers (a ring): an operation allocates a buffer of the next
 * size from the thread's precomputed size table, puts it in the ring and takes out the buffer it
 * replaces (allocated {@code window} operations earlier, so lifetimes are realistic and frees are
 * of old buffers). That old buffer is freed here, except for {@link #remoteFreePercent}% of them
 * (spread evenly, not in bursts), which are handed to another thread to free:
 * <ul>
 *   <li>with {@code -t N}, N ≥ 2: to the other benchmark threads in turn, through a lock-free MPSC
 *       queue per thread ({@link ConcurrentLinkedQueue}); each thread frees what it finds in its
 *       queue at the start of its next operation, so in steady state every thread frees one buffer
 *       per operation on average (0.9 of its own, 0.1 handed to it);</li>
 *   <li>with {@code -t 1}: to a background thread started per trial, which frees what its queue
 *       holds and parks 10 µs when it is empty. Its frees are off the measured thread.</li>
 * </ul>
 *
 * <p><b>Workloads</b> (sizes drawn once per thread into a 64 Ki-entry table, seeded by the thread's
 * index, so the random number generator is not measured and runs are repeatable):
 * {@code small} uniform on [16 B, 16 KiB]; {@code large} on [64 KiB, 1 MiB] with the rpmalloc
 * benchmark's "exponential dropoff": {@code min + (max - min)·u1·u2·u3} for three independent
 * uniforms (mean ≈ 184 KiB, median ≈ 125 KiB).
 *
 * <p><b>Peak memory</b>: a sampler thread reads, every millisecond, the JDK's direct-memory pool
 * ({@code BufferPoolMXBean "direct"}: all of Netty's chunks and buffers on JDK 17, the soft
 * provider's registered blocks, and jdk-direct's buffers until their Cleaner runs) and the
 * allocator's own count (registered: bytes registered; Netty: its metric's usedDirectMemory).
 * Registered also reports its exact {@code peakRegisteredBytes}. At the end of the trial one line
 * ({@code # allocator-peak ...}) goes to standard output and, with {@code -Dallocbench.out=FILE},
 * is appended to that file (the report runner reads it). The peak covers the whole trial (warm-up
 * and measurement), each trial in its own fork.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 2, jvmArgsAppend = {AllocatorBenchmark.XMS, AllocatorBenchmark.XMX, AllocatorBenchmark.MAX_DIRECT,
        AllocatorBenchmark.NO_LEAK_DETECTION})
@State(Scope.Benchmark)
public class AllocatorBenchmark {

    /** Which allocator: see {@link AllocatorSubject#KINDS} (and netty-pooled-nocache). */
    @Param({"registered", "netty-pooled", "netty-adaptive", "netty-unpooled", "jdk-direct"})
    public String allocator;

    /** {@code small}: uniform 16 B – 16 KiB; {@code large}: 64 KiB – 1 MiB, exponential dropoff. */
    @Param({"small", "large"})
    public String workload;

    /** Live buffers per thread (a power of two). */
    @Param({"128"})
    public int window;

    /** Percent of frees handed to another thread. */
    @Param({"10"})
    public int remoteFreePercent;

    static final int SIZE_TABLE = 1 << 16;

    /*
     * The forked JVM's flags (the report runner passes the same ones). The heap is fixed so that GC
     * work is comparable. Direct memory is capped at 4 GiB: well above what any pooled allocator
     * needs here (at 1 GiB netty-adaptive's large workload at 4 threads ran out), and the bound on
     * how much garbage jdk-direct piles up before Bits.reserveMemory forces a GC (so jdk-direct's
     * "peak" is this cap, whatever it is). Netty's leak detector samples 1 in 128 allocations of
     * every Netty-faced allocator (registered included) by default; it is off here so that the
     * allocators themselves are measured.
     */
    static final String XMS = "-Xms1g";
    static final String XMX = "-Xmx1g";
    static final String MAX_DIRECT = "-XX:MaxDirectMemorySize=4g";
    static final String NO_LEAK_DETECTION = "-Dio.netty.leakDetection.level=disabled";

    AllocatorSubject subject;
    /** Handed-off buffers, one queue per benchmark thread (with -t 1: one, for the background freer). */
    ConcurrentLinkedQueue<Object>[] inboxes;
    int threads;
    private final AtomicInteger nextIndex = new AtomicInteger();
    private final List<PerThread> states = new CopyOnWriteArrayList<>();
    private BackgroundFreer freer;
    private DirectMemorySampler sampler;
    private long baselineDirect;

    @Setup(Level.Trial)
    @SuppressWarnings({"unchecked", "rawtypes"}) // an array of generic queues
    public void setUp(BenchmarkParams params) {
        if (Integer.bitCount(window) != 1) {
            throw new IllegalArgumentException("window must be a power of two, got " + window);
        }
        if (remoteFreePercent < 0 || remoteFreePercent > 100) {
            throw new IllegalArgumentException("remoteFreePercent must be 0..100, got " + remoteFreePercent);
        }
        sizesFor(workload, 0); // validates the workload name before anything is allocated
        threads = params.getThreads();
        System.gc(); // start from a clean direct-memory count (previous trials in this JVM, if -f 0)
        baselineDirect = DirectMemorySampler.directBytes();
        subject = AllocatorSubject.create(allocator);
        inboxes = new ConcurrentLinkedQueue[threads];
        for (int i = 0; i < threads; i++) {
            inboxes[i] = new ConcurrentLinkedQueue<>();
        }
        if (threads == 1) {
            freer = new BackgroundFreer(subject, inboxes[0]);
        }
        sampler = new DirectMemorySampler(subject::sampledOwnBytes);
    }

    @TearDown(Level.Iteration)
    public void sampleAtIterationEnd() {
        sampler.sample();
    }

    /** Runs once, after every benchmark thread has finished: frees everything, then reports the peaks. */
    @TearDown(Level.Trial)
    public void tearDown(BenchmarkParams params) {
        if (freer != null) {
            freer.close();
        }
        sampler.close();
        long ownPeak = subject.ownPeakBytes() >= 0 ? subject.ownPeakBytes() : sampler.peakOwn();
        String line = String.format(Locale.ROOT,
                "allocator=%s workload=%s threads=%d window=%d remoteFreePercent=%d baselineDirect=%d peakDirect=%d "
                        + "peakDirectDelta=%d peakOwn=%d samples=%d details=%s",
                allocator, workload, threads, window, remoteFreePercent, baselineDirect, sampler.peakDirect(),
                sampler.peakDirect() - baselineDirect, ownPeak, sampler.samples(), subject.details().replace(' ', '_'));
        for (PerThread s : states) {
            s.freeAll(subject);
        }
        for (ConcurrentLinkedQueue<Object> q : inboxes) {
            for (Object b; (b = q.poll()) != null; ) {
                subject.free(b);
            }
        }
        subject.close();
        System.out.println();
        System.out.println("# allocator-peak " + line);
        String out = System.getProperty("allocbench.out");
        if (out != null && !out.isEmpty()) {
            try {
                Files.write(Path.of(out), (line + System.lineSeparator()).getBytes(StandardCharsets.UTF_8),
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + out, e);
            }
        }
    }

    /** A thread's size table: {@link #SIZE_TABLE} sizes of the workload. */
    static int[] sizesFor(String workload, long seed) {
        SplittableRandom r = new SplittableRandom(0x5EED_A110CL + seed * 0x9E3779B97F4A7C15L);
        int[] sizes = new int[SIZE_TABLE];
        switch (workload) {
            case "small":
                for (int i = 0; i < sizes.length; i++) {
                    sizes[i] = 16 + r.nextInt(16 * 1024 - 16 + 1);
                }
                break;
            case "large":
                int min = 64 * 1024;
                int range = 1024 * 1024 - min;
                for (int i = 0; i < sizes.length; i++) {
                    double f = r.nextDouble() * r.nextDouble() * r.nextDouble();
                    sizes[i] = min + (int) Math.round(range * f);
                }
                break;
            default:
                throw new IllegalArgumentException("unknown workload '" + workload + "'; use small or large");
        }
        return sizes;
    }

    /** One benchmark thread's window, sizes and hand-off bookkeeping. */
    @State(Scope.Thread)
    public static class PerThread {
        int index;
        int[] sizes;
        Object[] ring;
        int mask;
        int pos;
        int sizePos;
        int remoteAccumulator;
        int remotePercent;
        int nextTarget;
        ConcurrentLinkedQueue<Object> inbox;
        ConcurrentLinkedQueue<Object>[] inboxes;

        @Setup(Level.Trial)
        public void setUp(AllocatorBenchmark b) {
            index = b.nextIndex.getAndIncrement();
            sizes = sizesFor(b.workload, index);
            ring = new Object[b.window];
            mask = b.window - 1;
            remotePercent = b.remoteFreePercent;
            inboxes = b.inboxes;
            inbox = b.threads > 1 ? b.inboxes[index] : null;
            nextTarget = index;
            for (int i = 0; i < ring.length; i++) {
                ring[i] = b.subject.allocate(sizes[sizePos++ & (SIZE_TABLE - 1)]);
            }
            b.states.add(this);
        }

        /** The queue of the next thread (round robin, never this one), or the background freer's. */
        ConcurrentLinkedQueue<Object> nextTarget() {
            if (inboxes.length == 1) {
                return inboxes[0];
            }
            int t = nextTarget + 1;
            if (t >= inboxes.length) {
                t = 0;
            }
            if (t == index) {
                t = t + 1 >= inboxes.length ? 0 : t + 1;
            }
            nextTarget = t;
            return inboxes[t];
        }

        void freeAll(AllocatorSubject subject) {
            for (int i = 0; i < ring.length; i++) {
                if (ring[i] != null) {
                    subject.free(ring[i]);
                    ring[i] = null;
                }
            }
        }
    }

    /** One operation: free what other threads handed over, allocate one buffer, free (or hand off) the oldest. */
    @Benchmark
    public void allocateAndFree(PerThread t) {
        AllocatorSubject s = subject;
        ConcurrentLinkedQueue<Object> in = t.inbox;
        if (in != null) {
            for (Object b; (b = in.poll()) != null; ) {
                s.free(b);
            }
        }
        Object fresh = s.allocate(t.sizes[t.sizePos++ & (SIZE_TABLE - 1)]);
        int slot = t.pos++ & t.mask;
        Object old = t.ring[slot];
        t.ring[slot] = fresh;
        int acc = t.remoteAccumulator + t.remotePercent;
        if (acc >= 100) {
            t.remoteAccumulator = acc - 100;
            t.nextTarget().offer(old);
        } else {
            t.remoteAccumulator = acc;
            s.free(old);
        }
    }

    /** With -t 1: the "other thread" that frees the handed-off 10%. */
    static final class BackgroundFreer implements AutoCloseable {
        private final AllocatorSubject subject;
        private final ConcurrentLinkedQueue<Object> queue;
        private final Thread thread;
        private volatile boolean running = true;

        BackgroundFreer(AllocatorSubject subject, ConcurrentLinkedQueue<Object> queue) {
            this.subject = subject;
            this.queue = queue;
            this.thread = new Thread(this::loop, "allocator-benchmark-freer");
            thread.setDaemon(true);
            thread.start();
        }

        private void loop() {
            while (running) {
                boolean any = false;
                for (Object b; (b = queue.poll()) != null; ) {
                    subject.free(b);
                    any = true;
                }
                if (!any) {
                    LockSupport.parkNanos(10_000);
                }
            }
            for (Object b; (b = queue.poll()) != null; ) {
                subject.free(b);
            }
        }

        @Override
        public void close() {
            running = false;
            try {
                thread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
