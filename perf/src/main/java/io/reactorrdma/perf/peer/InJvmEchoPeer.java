package io.reactorrdma.perf.peer;

import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.measure.CpuMeter;
import io.reactorrdma.perf.measure.EngineMeters;
import io.reactorrdma.perf.measure.PeerSide;

/**
 * A server end in this JVM (echo's or the RSocket scenarios' on rdma-loopback, RSocket's on
 * local), seen as a {@link PeerSide}: its CPU account is its own threads (for rdma-loopback its
 * I/O thread and its provider thread); its meters are read directly.
 */
public final class InJvmEchoPeer implements PeerSide {

    private final InJvmServer server;
    private final CpuMeter cpu;
    private final long[] cpuMarks = {-1, -1};
    private final EngineMeters[] meterMarks = {EngineMeters.NONE, EngineMeters.NONE};
    private int marks;

    private InJvmEchoPeer(InJvmServer server) {
        this.server = server;
        this.cpu = server.threadsCpu();
    }

    /** Accounts for {@code server}, which already runs (and is closed with this peer). */
    public static InJvmEchoPeer of(InJvmServer server) {
        return new InJvmEchoPeer(server);
    }

    @Override
    public int port() {
        return server.port();
    }

    @Override
    public void markCpu() {
        if (marks < cpuMarks.length) {
            cpuMarks[marks] = cpu.nanos();
            meterMarks[marks] = server.meters();
            marks++;
        }
    }

    @Override
    public long cpuNanosBetweenMarks() {
        return CpuMeter.delta(cpuMarks[0], cpuMarks[1]);
    }

    @Override
    public EngineMeters metersBetweenMarks() {
        return marks < 2 ? EngineMeters.NONE : meterMarks[1].minus(meterMarks[0]);
    }

    @Override
    public String awaitReport(String key) {
        throw new PerfException("the in-JVM server reports nothing under " + key + "; this is a bug in the perf tool");
    }

    @Override
    public void close() {
        server.close();
    }
}
