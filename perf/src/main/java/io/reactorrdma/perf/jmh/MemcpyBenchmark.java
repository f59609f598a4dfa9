package io.reactorrdma.perf.jmh;

import io.reactorrdma.perf.measure.Patterns;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * The memcpy floor as a JMH benchmark: one absolute bulk copy of {@code size} bytes between two
 * direct buffers. Returns the target so that the copy cannot be eliminated.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MemcpyBenchmark {

    @Param({"8", "4096", "1048576"})
    public int size;

    private ByteBuffer source;
    private ByteBuffer target;

    @Setup
    public void setUp() {
        source = ByteBuffer.allocateDirect(size);
        target = ByteBuffer.allocateDirect(size);
        Patterns.fill(source, 42);
    }

    @Benchmark
    public ByteBuffer copy() {
        return target.put(0, source, 0, size);
    }
}
