package io.reactorrdma.perf;

import reactor.netty.resources.LoopResources;

import java.util.List;
import java.util.function.Supplier;

/**
 * Runs the echo scenario on one transport: starts the server end (a forked JVM for rdma-shm and
 * tcp, this JVM for rdma-loopback), opens {@code --connections} connections, runs their closed
 * loops — until each got its first echo, then through warm-up and the measured phase — and returns the figures; for RDMA it also prints
 * what both engines counted in the measured phase.
 */
final class EchoRunner {

    /** How long the loops may take to get their last echo after the run ends. */
    private static final long STOP_TIMEOUT_MILLIS = 30_000;
    /** How long the first echo of every connection may take (class loading and a cold JIT on a busy machine). */
    private static final long FIRST_ECHO_TIMEOUT_MILLIS = 30_000;

    private EchoRunner() {
    }

    /** What one echo run measured: the figures, and for RDMA what each engine counted in the measured phase. */
    record Outcome(Result result, EngineMeters client, EngineMeters server) {
    }

    /** Runs echo on {@code t} and prints the engines' meters (RDMA). */
    static Result run(PerfOptions o, Transport t) {
        Outcome out = measureOn(o, t);
        if (!out.client().isEmpty()) {
            Log.info(t.id() + " client engine, measured phase: " + out.client().describe(out.result().ops()));
            Log.info(t.id() + " server engine, measured phase: " + out.server().describe(out.result().ops()));
        }
        return out.result();
    }

    static Outcome measureOn(PerfOptions o, Transport t) {
        switch (t) {
            case RDMA_SHM:
                return rdmaShm(o);
            case RDMA_LOOPBACK:
                return rdmaLoopback(o);
            case TCP:
                return tcp(o);
            default:
                throw new IllegalStateException("echo does not run on " + t.id());
        }
    }

    private static Outcome rdmaShm(PerfOptions o) {
        EchoLoops loops = new EchoLoops();
        try (PeerSide peer = ForkedPeer.start("echo-rdma", peerArgs(o));
             RdmaEchoClient client = RdmaEchoClient.connect("shm", o.poll, peer.port(), o.connections, o.size, loops)) {
            return measure(o, Transport.RDMA_SHM, loops, peer, CpuMeter.process(), client::meters);
        }
    }

    private static Outcome rdmaLoopback(PerfOptions o) {
        EchoLoops loops = new EchoLoops();
        try (PeerSide peer = InJvmEchoPeer.start("loopback", o.poll);
             RdmaEchoClient client = RdmaEchoClient.connect("loopback", o.poll, peer.port(), o.connections, o.size, loops)) {
            return measure(o, Transport.RDMA_LOOPBACK, loops, peer, client.threadsCpu(), client::meters);
        }
    }

    private static Outcome tcp(PerfOptions o) {
        Log.info("tcp: Reactor Netty's event loops (" + (LoopResources.hasNativeSupport() && LoopResources.DEFAULT_NATIVE
                ? "native transport" : "NIO") + ") block waiting for I/O on both ends; --poll does not apply to them");
        EchoLoops loops = new EchoLoops();
        try (PeerSide peer = ForkedPeer.start("echo-tcp", peerArgs(o));
             TcpEchoClient client = TcpEchoClient.connect(peer.port(), o.connections, o.size, loops)) {
            return measure(o, Transport.TCP, loops, peer, CpuMeter.process(), null);
        }
    }

    private static List<String> peerArgs(PerfOptions o) {
        return List.of("--poll", o.poll.id(), "--max-seconds", Long.toString((long) Math.ceil(o.warmupSeconds + o.durationSeconds) + 120));
    }

    /**
     * Warm-up, then the measured phase between two marks of both sides' CPU (and meters), then
     * the stop. {@code meters} is null for a transport without an RDMA engine.
     */
    private static Outcome measure(PerfOptions o, Transport t, EchoLoops loops, PeerSide peer, CpuMeter cpu,
                                  Supplier<EngineMeters> meters) {
        loops.startAll();
        loops.awaitFirstEchoes(FIRST_ECHO_TIMEOUT_MILLIS);
        loops.runFor(o.warmupNanos());
        peer.markCpu();
        EngineMeters meters0 = meters == null ? EngineMeters.NONE : meters.get();
        long cpu0 = cpu.nanos();
        long start = System.nanoTime();
        loops.measure();
        loops.runFor(o.durationNanos());
        loops.stop();
        long elapsed = System.nanoTime() - start;
        long cpu1 = cpu.nanos();
        EngineMeters meters1 = meters == null ? EngineMeters.NONE : meters.get();
        peer.markCpu();
        loops.awaitStopped(STOP_TIMEOUT_MILLIS);
        long ops = loops.measured();
        if (ops == 0) {
            throw new PerfException("no echo came back in the measured phase of " + o.durationSeconds + " s; the transport stalled");
        }
        long peerCpu = peer.cpuNanosBetweenMarks();
        Result r = new Result(o.scenario, t, o.size, ops, loops.latencies(), Result.mibPerSecond(ops, o.size, elapsed),
                Result.usPerOp(CpuMeter.delta(cpu0, cpu1), ops), Result.usPerOp(peerCpu, ops), -1);
        return meters == null ? new Outcome(r, EngineMeters.NONE, EngineMeters.NONE)
                : new Outcome(r, meters1.minus(meters0), peer.metersBetweenMarks());
    }
}
