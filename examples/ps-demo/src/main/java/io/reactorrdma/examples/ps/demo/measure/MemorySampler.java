package io.reactorrdma.examples.ps.demo.measure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Samples a byte count (the registered memory of this JVM's {@code RdmaResources}) every
 * {@link #DEFAULT_PERIOD} on a daemon thread, from {@link #start()} to {@link #close()}, with the
 * names of the phases it went through: the data of the paper's Figure 5 (grows, then flat).
 */
public final class MemorySampler implements AutoCloseable {

    /** Sampling period: 100 ms. */
    public static final Duration DEFAULT_PERIOD = Duration.ofMillis(100);

    /** One sample: seconds since the start, bytes. */
    public record Sample(double seconds, long bytes) {
    }

    /** A phase began at {@code seconds}. */
    public record Phase(String name, double seconds) {
    }

    private final LongSupplier bytes;
    private final List<Sample> samples = new ArrayList<>();
    private final List<Phase> phases = new ArrayList<>();
    private final long start = System.nanoTime();
    private final Thread thread;

    private MemorySampler(LongSupplier bytes) {
        this.bytes = bytes;
        this.thread = new Thread(this::loop, "ps-demo-memory-sampler");
        thread.setDaemon(true);
    }

    /** Starts sampling {@code bytes}. */
    public static MemorySampler start(LongSupplier bytes) {
        MemorySampler s = new MemorySampler(bytes);
        s.thread.start();
        return s;
    }

    private void loop() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                sample();
                Thread.sleep(DEFAULT_PERIOD.toMillis());
            }
        } catch (InterruptedException e) {
            // closed
        }
    }

    private void sample() {
        long b = bytes.getAsLong();
        synchronized (samples) {
            samples.add(new Sample((System.nanoTime() - start) / 1e9, b));
        }
    }

    /** Names the phase that begins now. */
    public void phase(String name) {
        synchronized (samples) {
            phases.add(new Phase(name, (System.nanoTime() - start) / 1e9));
        }
    }

    /** The samples so far. */
    public List<Sample> samples() {
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }

    /** The phases so far. */
    public List<Phase> phases() {
        synchronized (samples) {
            return List.copyOf(phases);
        }
    }

    /** Stops sampling (one last sample is taken). */
    @Override
    public void close() {
        thread.interrupt();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sample();
    }
}
