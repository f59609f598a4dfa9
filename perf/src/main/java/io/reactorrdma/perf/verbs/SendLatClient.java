package io.reactorrdma.perf.verbs;

import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.measure.Allocations;
import io.reactorrdma.perf.measure.CpuMeter;
import io.reactorrdma.perf.measure.Latencies;
import io.reactorrdma.perf.measure.Patterns;
import io.reactorrdma.perf.measure.PeerSide;
import io.reactorrdma.perf.report.Result;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.VerbsContext;
import org.HdrHistogram.Histogram;

import java.net.InetSocketAddress;
import java.util.function.BooleanSupplier;

/** The ping end of send-lat: SEND, wait for the answer's RECV completion, record the round trip. */
public final class SendLatClient {

    private static final BooleanSupplier NEVER = () -> false;

    private final SendRecvChannel channel;
    private final int size;
    private long lastEnd;

    private SendLatClient(SendRecvChannel channel, int size) {
        this.channel = channel;
        this.size = size;
    }

    public static Result run(VerbsContext ctx, PeerSide peer, CpuMeter cpu, PerfOptions o, Transport transport) {
        try (RdmaEndpoint ep = RdmaEndpoint.create(ctx, SendRecvChannel.SEND_DEPTH, SendRecvChannel.RECV_DEPTH)) {
            MemoryRegion sendMr = ep.allocate(o.size, AccessFlags.LOCAL_WRITE);
            MemoryRegion recvMr = ep.allocate(o.size, AccessFlags.LOCAL_WRITE);
            Patterns.fill(sendMr.buffer(), 1);
            SendRecvChannel channel = new SendRecvChannel(ep, sendMr, recvMr, o.size, o.poll);
            channel.postInitialReceives();
            ep.connect(ctx, new InetSocketAddress(peer.host(), peer.port()), null);
            return new SendLatClient(channel, o.size).measure(peer, cpu, o, transport);
        }
    }

    private Result measure(PeerSide peer, CpuMeter cpu, PerfOptions o, Transport transport) {
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
        return new Result(o.scenario, transport, size, ops, histogram, Double.NaN,
                Result.usPerOp(CpuMeter.delta(cpu0, cpu1), ops), Result.usPerOp(peer.cpuNanosBetweenMarks(), ops), allocated);
    }

    /** One ping-pong; returns its round-trip nanoseconds and leaves its end time in {@link #lastEnd}. */
    private long roundTrip() {
        long start = System.nanoTime();
        channel.send();
        int n = channel.awaitRecv(SendRecvChannel.STALL_NANOS, NEVER);
        lastEnd = System.nanoTime();
        if (n != size) {
            throw new PerfException(n < 0 ? "the connection ended during the run" : "the answer had " + n + " bytes, not " + size);
        }
        return lastEnd - start;
    }
}
