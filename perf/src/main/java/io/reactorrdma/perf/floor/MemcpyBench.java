package io.reactorrdma.perf.floor;

import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.measure.Allocations;
import io.reactorrdma.perf.measure.CpuMeter;
import io.reactorrdma.perf.measure.Patterns;
import io.reactorrdma.perf.report.Result;

import java.nio.ByteBuffer;

/** The write-bw floor: one thread copying --size bytes from one direct buffer to another, as fast as it can. */
public final class MemcpyBench {

    /** Copies between clock readings: enough that reading the clock costs nothing next to them. */
    private static final int BYTES_PER_CLOCK_CHECK = 1 << 20;

    private final ByteBuffer source;
    private final ByteBuffer target;
    private final int size;
    private final int copiesPerCheck;

    private MemcpyBench(int size) {
        this.size = size;
        this.source = ByteBuffer.allocateDirect(size);
        this.target = ByteBuffer.allocateDirect(size);
        this.copiesPerCheck = Math.max(1, BYTES_PER_CLOCK_CHECK / size);
        Patterns.fill(source, 42);
    }

    public static Result run(PerfOptions o) {
        MemcpyBench bench = new MemcpyBench(o.size);
        CpuMeter cpu = CpuMeter.currentThread();
        bench.copyUntil(System.nanoTime() + o.warmupNanos());
        long cpu0 = cpu.nanos();
        long alloc0 = Allocations.currentThread();
        long start = System.nanoTime();
        long ops = bench.copyUntil(start + o.durationNanos());
        long elapsed = System.nanoTime() - start;
        long allocated = CpuMeter.delta(alloc0, Allocations.currentThread());
        long cpu1 = cpu.nanos();
        if (!Patterns.crc32(bench.target, o.size).equals(Patterns.crc32(bench.source, o.size))) {
            throw new PerfException("memcpy: the copy differs from its source");
        }
        return new Result(o.scenario, Transport.MEMCPY, o.size, ops, null, Result.mibPerSecond(ops, o.size, elapsed),
                Result.usPerOp(CpuMeter.delta(cpu0, cpu1), ops), Double.NaN, allocated);
    }

    /** Copies until {@code deadline}; returns the number of copies. */
    private long copyUntil(long deadline) {
        long ops = 0;
        do {
            for (int i = 0; i < copiesPerCheck; i++) {
                target.put(0, source, 0, size);
            }
            ops += copiesPerCheck;
        } while (System.nanoTime() - deadline < 0);
        return ops;
    }
}
