package io.reactorrdma.perf.echo;

import io.reactorrdma.perf.cli.Log;
import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.measure.CpuMeter;
import io.reactorrdma.perf.measure.EchoLoops;
import io.reactorrdma.perf.measure.EngineMeters;
import io.reactorrdma.perf.measure.LoopRun;
import io.reactorrdma.perf.measure.Outcome;
import io.reactorrdma.perf.peer.ForkedPeer;
import io.reactorrdma.perf.peer.InJvmEchoPeer;
import io.reactorrdma.perf.measure.PeerSide;
import io.reactorrdma.perf.report.Result;
import reactor.netty.resources.LoopResources;

import java.util.List;
import java.util.function.Supplier;

/**
 * Runs the echo scenario on one transport: starts the server end (a forked JVM for rdma-shm and
 * tcp, this JVM for rdma-loopback), opens {@code --connections} connections, runs their closed
 * loops ({@link LoopRun}) — until each got its first echo, then through warm-up and the measured phase — and returns the
 * figures; for RDMA it also prints what both engines counted in the measured phase.
 */
public final class EchoRunner {

    private EchoRunner() {
    }

    /** Runs echo on {@code t} and prints the engines' meters (RDMA). */
    public static Result run(PerfOptions o, Transport t) {
        return measureOn(o, t).logMeters(t);
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
        try (PeerSide peer = InJvmEchoPeer.of(RdmaEchoServer.start("loopback", o.poll, o.reply));
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
        return List.of("--poll", o.poll.id(), "--reply", o.reply.id(),
                "--max-seconds", Long.toString((long) Math.ceil(o.warmupSeconds + o.durationSeconds) + 120));
    }

    private static Outcome measure(PerfOptions o, Transport t, EchoLoops loops, PeerSide peer, CpuMeter cpu,
                                  Supplier<EngineMeters> meters) {
        return LoopRun.measure(o, t, loops, peer, cpu, meters, true);
    }
}
