package io.reactorrdma.perf.rsocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.reactorrdma.perf.cli.Log;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.Scenario;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.measure.EchoLoops;
import io.reactorrdma.perf.measure.EchoTemplates;
import io.reactorrdma.perf.peer.InJvmEchoPeer;
import io.reactorrdma.perf.measure.LoopRun;
import io.reactorrdma.perf.measure.Outcome;
import io.reactorrdma.perf.measure.CpuMeter;
import io.reactorrdma.perf.measure.EngineMeters;
import io.reactorrdma.perf.peer.ForkedPeer;
import io.reactorrdma.perf.measure.PeerSide;
import io.reactorrdma.perf.report.Result;
import io.rsocket.RSocket;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * Runs rsocket-rr or rsocket-stream on one transport: starts the server end ({@link RSocketServerEnd}: a
 * forked JVM for rdma-shm and tcp, this JVM for rdma-loopback and local), connects
 * {@code --connections} RSocket requesters ({@link RSocketClientEnd}), runs one loop per connection
 * ({@link RequestResponseLoop} or {@link StreamLoop}) through warm-up and the measured phase
 * ({@link LoopRun}) and returns the figures; for RDMA it also prints what both engines counted.
 */
public final class RSocketRunner {

    private RSocketRunner() {
    }

    public static Result run(PerfOptions o, Transport t) {
        return measureOn(o, t).logMeters(t);
    }

    static Outcome measureOn(PerfOptions o, Transport t) {
        switch (t) {
            case RDMA_SHM:
                try (PeerSide peer = ForkedPeer.start("rsocket-rdma", peerArgs(o));
                     RSocketClientEnd client = RSocketClientEnd.rdma("shm", o.poll, peer.port(), o.connections)) {
                    return measure(o, t, client, peer, CpuMeter.process(), client::meters);
                }
            case RDMA_LOOPBACK:
                try (PeerSide peer = InJvmEchoPeer.of(RSocketServerEnd.rdma("loopback", o.poll, o.size));
                     RSocketClientEnd client = RSocketClientEnd.rdma("loopback", o.poll, peer.port(), o.connections)) {
                    return measure(o, t, client, peer, client.threadsCpu(), client::meters);
                }
            case TCP:
                Log.info("tcp: RSocket's TcpClientTransport/TcpServerTransport on Reactor Netty's event loops, which block waiting "
                        + "for I/O on both ends; --poll does not apply to them");
                try (PeerSide peer = ForkedPeer.start("rsocket-tcp", peerArgs(o));
                     RSocketClientEnd client = RSocketClientEnd.tcp(peer.port(), o.connections)) {
                    return measure(o, t, client, peer, CpuMeter.process(), null);
                }
            case LOCAL:
                Log.info("local: RSocket's in-JVM Local transport; --poll does not apply; client and server share this process, "
                        + "whose CPU is counted as the client's");
                String name = "perf-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
                try (PeerSide peer = InJvmEchoPeer.of(RSocketServerEnd.local(name, o.size));
                     RSocketClientEnd client = RSocketClientEnd.local(name, o.connections)) {
                    return measure(o, t, client, peer, CpuMeter.process(), null);
                }
            default:
                throw new PerfException(o.scenario.id() + " does not run on " + t.id());
        }
    }

    private static List<String> peerArgs(PerfOptions o) {
        return List.of("--poll", o.poll.id(), "--size", Integer.toString(o.size),
                "--max-seconds", Long.toString((long) Math.ceil(o.warmupSeconds + o.durationSeconds) + 120));
    }

    private static Outcome measure(PerfOptions o, Transport t, RSocketClientEnd client, PeerSide peer, CpuMeter cpu,
                                   Supplier<EngineMeters> meters) {
        boolean rr = o.scenario == Scenario.RSOCKET_RR;
        EchoLoops loops = new EchoLoops();
        List<ByteBuf> templates = new ArrayList<>();
        try {
            for (RSocket socket : client.sockets()) {
                int id = loops.nextId();
                if (rr) {
                    ByteBuf template = EchoTemplates.filled(client.alloc().directBuffer(o.size, o.size), o.size, id);
                    templates.add(template);
                    loops.add(new RequestResponseLoop(id, socket, template, loops));
                } else {
                    ByteBuf expected = EchoTemplates.filled(Unpooled.buffer(o.size, o.size), o.size, RSocketPerfResponder.STREAM_PATTERN);
                    templates.add(expected);
                    loops.add(new StreamLoop(id, socket, expected, loops));
                }
            }
            return LoopRun.measure(o, t, loops, peer, cpu, meters, rr);
        } finally {
            templates.forEach(ByteBuf::release);
        }
    }
}
