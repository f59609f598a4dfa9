package io.reactorrdma.perf;

/**
 * The echo server in this JVM (rdma-loopback), seen as a {@link PeerSide}: its CPU account is its
 * I/O thread and its provider thread; its meters are read directly.
 */
final class InJvmEchoPeer implements PeerSide {

    private final RdmaEchoServer server;
    private final CpuMeter cpu;
    private final long[] cpuMarks = {-1, -1};
    private final EngineMeters[] meterMarks = {EngineMeters.NONE, EngineMeters.NONE};
    private int marks;

    private InJvmEchoPeer(RdmaEchoServer server) {
        this.server = server;
        this.cpu = server.threadsCpu();
    }

    static InJvmEchoPeer start(String provider, PollMode poll) {
        return new InJvmEchoPeer(RdmaEchoServer.start(provider, poll));
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
        throw new PerfException("the in-JVM echo server reports nothing under " + key + "; this is a bug in the perf tool");
    }

    @Override
    public void close() {
        server.close();
    }
}
