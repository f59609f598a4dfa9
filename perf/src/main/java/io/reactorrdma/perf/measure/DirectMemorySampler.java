package io.reactorrdma.perf.measure;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Samples, every {@link #PERIOD_NANOS}, the JDK's direct-memory count (the "direct"
 * {@link BufferPoolMXBean}: every {@code ByteBuffer.allocateDirect} not yet freed by its Cleaner,
 * which is how Netty 4.2 on JDK 17 gets its direct memory, and how the soft provider's loopback
 * fabric gets registered blocks) and an allocator's own count, and keeps the peaks. A daemon thread
 * that sleeps between samples: about 1 000 cheap reads a second.
 */
public final class DirectMemorySampler implements AutoCloseable {

    static final long PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final BufferPoolMXBean DIRECT = directPool();

    private final LongSupplier own;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile long peakDirect;
    private volatile long peakOwn = -1;
    private volatile long samples;

    public DirectMemorySampler(LongSupplier own) {
        this.own = own;
        sample();
        this.thread = new Thread(this::loop, "direct-memory-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private static BufferPoolMXBean directPool() {
        for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (b.getName().equals("direct")) {
                return b;
            }
        }
        throw new IllegalStateException("this JVM has no 'direct' BufferPoolMXBean");
    }

    /** Bytes of direct memory the JDK has reserved now ({@code BufferPoolMXBean("direct").getMemoryUsed()}). */
    public static long directBytes() {
        return DIRECT.getMemoryUsed();
    }

    private void loop() {
        while (running) {
            sample();
            LockSupport.parkNanos(PERIOD_NANOS);
        }
    }

    /** Takes one sample now (also called by the owner at the end of each iteration). */
    public synchronized void sample() {
        long d = DIRECT.getMemoryUsed();
        if (d > peakDirect) {
            peakDirect = d;
        }
        long o = own.getAsLong();
        if (o > peakOwn) {
            peakOwn = o;
        }
        samples++;
    }

    public long peakDirect() {
        return peakDirect;
    }

    /** Peak of the allocator's own count, or -1 when it keeps none. */
    public long peakOwn() {
        return peakOwn;
    }

    public long samples() {
        return samples;
    }

    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sample();
    }
}
