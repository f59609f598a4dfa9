package io.reactorrdma.perf.floor;

import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.measure.Allocations;
import io.reactorrdma.perf.measure.CpuMeter;
import io.reactorrdma.perf.measure.Latencies;
import io.reactorrdma.perf.measure.PeerSide;
import io.reactorrdma.perf.report.Result;
import io.reactorrdma.perf.verbs.SendRecvChannel;

import org.HdrHistogram.Histogram;

/** The ping end of shm-floor: store the next counter value, spin until the peer echoes it. */
public final class ShmFloorClient {

    private static final int SPINS_PER_CLOCK_CHECK = 1 << 16;

    private final ShmFloorChannel channel;
    private long sequence;
    private long lastEnd;

    private ShmFloorClient(ShmFloorChannel channel) {
        this.channel = channel;
    }

    public static Result run(ShmFloorChannel channel, PeerSide peer, CpuMeter cpu, PerfOptions o) {
        ShmFloorClient client = new ShmFloorClient(channel);
        try {
            return client.measure(peer, cpu, o);
        } finally {
            channel.ping(ShmFloorChannel.STOP);
        }
    }

    private Result measure(PeerSide peer, CpuMeter cpu, PerfOptions o) {
        Histogram histogram = Latencies.newHistogram();
        long warmEnd = System.nanoTime() + o.warmupNanos();
        while (System.nanoTime() - warmEnd < 0) {
            roundTrip();
        }
        peer.markCpu();
        long cpu0 = cpu.nanos();
        long now = System.nanoTime();
        long end = now + o.durationNanos();
        long alloc0 = Allocations.currentThread();
        long ops = 0;
        while (now - end < 0) {
            Latencies.record(histogram, roundTrip());
            ops++;
            now = lastEnd;
        }
        long allocated = CpuMeter.delta(alloc0, Allocations.currentThread());
        long cpu1 = cpu.nanos();
        peer.markCpu();
        return new Result(o.scenario, Transport.SHM_FLOOR, 8, ops, histogram, Double.NaN,
                Result.usPerOp(CpuMeter.delta(cpu0, cpu1), ops), Result.usPerOp(peer.cpuNanosBetweenMarks(), ops), allocated);
    }

    private long roundTrip() {
        long v = ++sequence;
        long start = System.nanoTime();
        channel.ping(v);
        int spins = 0;
        while (channel.readPong() != v) {
            Thread.onSpinWait();
            if (++spins == SPINS_PER_CLOCK_CHECK) {
                spins = 0;
                if (System.nanoTime() - start > SendRecvChannel.STALL_NANOS) {
                    throw new PerfException("the shm-floor peer did not answer for " + SendRecvChannel.STALL_NANOS / 1_000_000_000L + " s");
                }
            }
        }
        lastEnd = System.nanoTime();
        return lastEnd - start;
    }
}
