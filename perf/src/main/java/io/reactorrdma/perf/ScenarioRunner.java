package io.reactorrdma.perf;

import io.reactorrdma.perf.cli.Log;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.cli.Scenario;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.echo.EchoRunner;
import io.reactorrdma.perf.fanout.FanoutRunner;
import io.reactorrdma.perf.floor.MemcpyBench;
import io.reactorrdma.perf.floor.ShmFloorChannel;
import io.reactorrdma.perf.floor.ShmFloorClient;
import io.reactorrdma.perf.measure.CpuMeter;
import io.reactorrdma.perf.peer.ForkedPeer;
import io.reactorrdma.perf.peer.InJvmPeer;
import io.reactorrdma.perf.measure.PeerSide;
import io.reactorrdma.perf.peer.RemotePeer;
import io.reactorrdma.perf.peer.ServerTask;
import io.reactorrdma.perf.report.Result;
import io.reactorrdma.perf.rsocket.RSocketRunner;
import io.reactorrdma.perf.ucx.UcxPerftest;
import io.reactorrdma.perf.ucx.UcxRunner;
import io.reactorrdma.perf.verbs.SendLatClient;
import io.reactorrdma.perf.verbs.SendLatServer;
import io.reactorrdma.perf.verbs.WriteBwClient;
import io.reactorrdma.perf.verbs.WriteBwServer;
import io.reactorrdma.verbs.provider.Providers;
import io.reactorrdma.verbs.VerbsContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/** Sets one transport up for one scenario — contexts, peer, CPU meters — runs the client end and tears it all down. */
final class ScenarioRunner {

    /** Ports a forked peer listens on: a random one, so that runs side by side do not collide. */
    static final int PEER_PORT_MIN = 20000;
    static final int PEER_PORT_MAX = 40000;

    private ScenarioRunner() {
    }

    static Result run(PerfOptions o, Transport t) {
        return run(o, t, UcxPerftest.onPath());
    }

    /** Runs {@code o} on {@code t}; the ucx transport runs {@code ucx}. */
    static Result run(PerfOptions o, Transport t, UcxPerftest ucx) {
        if (t == Transport.UCX) {
            return UcxRunner.run(o, ucx);
        }
        if (o.scenario == Scenario.ECHO) {
            return EchoRunner.run(o, t);
        }
        if (o.scenario == Scenario.FANOUT) {
            return FanoutRunner.run(o, t);
        }
        if (o.scenario == Scenario.RSOCKET_RR || o.scenario == Scenario.RSOCKET_STREAM) {
            return RSocketRunner.run(o, t);
        }
        switch (t) {
            case RDMA_SHM:
                return rdmaShm(o);
            case RDMA_LOOPBACK:
                return rdmaLoopback(o);
            case RDMA_DISNI:
            case RDMA_FFM:
                return rdmaHardware(o, t);
            case SHM_FLOOR:
                return shmFloor(o);
            case MEMCPY:
                return MemcpyBench.run(o);
            default:
                throw new PerfException(o.scenario.id() + " does not run on " + t.id());
        }
    }

    private static Result rdmaShm(PerfOptions o) {
        int port = ThreadLocalRandom.current().nextInt(PEER_PORT_MIN, PEER_PORT_MAX);
        List<String> args = List.of("--port", Integer.toString(port), "--size", Integer.toString(o.size),
                "--poll", o.poll.id(), "--max-seconds", Long.toString(maxPeerSeconds(o)));
        try (VerbsContext ctx = Providers.open("shm");
             PeerSide peer = ForkedPeer.start(o.scenario.id(), args)) {
            return client(ctx, peer, CpuMeter.process(), o, Transport.RDMA_SHM);
        }
    }

    /** The client on RDMA hardware through {@code t}'s provider; the peer runs on another host (serve). */
    private static Result rdmaHardware(PerfOptions o, Transport t) {
        try (VerbsContext ctx = Providers.open(t.hardwareProvider());
             PeerSide peer = new RemotePeer(o.peerHost, o.peerPort)) {
            return client(ctx, peer, CpuMeter.process(), o, t);
        }
    }

    private static Result rdmaLoopback(PerfOptions o) {
        if (!PerfOptions.LOOPBACK_PROVIDER.equals(o.loopbackProvider)) {
            Log.info("rdma-loopback: both ends in this JVM on provider " + o.loopbackProvider);
        }
        try (VerbsContext serverCtx = Providers.open(o.loopbackProvider);
             VerbsContext clientCtx = Providers.open(o.loopbackProvider);
             PeerSide peer = InJvmPeer.start("perf-server-" + o.scenario.id(), server(serverCtx, o))) {
            return client(clientCtx, peer, CpuMeter.currentThread(), o, Transport.RDMA_LOOPBACK);
        }
    }

    private static ServerTask server(VerbsContext ctx, PerfOptions o) {
        return o.scenario == Scenario.SEND_LAT
                ? SendLatServer.task(ctx, 0, o.size, o.poll)
                : WriteBwServer.task(ctx, 0, o.size);
    }

    private static Result client(VerbsContext ctx, PeerSide peer, CpuMeter cpu, PerfOptions o, Transport t) {
        return o.scenario == Scenario.SEND_LAT
                ? SendLatClient.run(ctx, peer, cpu, o, t)
                : WriteBwClient.run(ctx, peer, cpu, o, t);
    }

    private static Result shmFloor(PerfOptions o) {
        if (o.poll == PollMode.BLOCK) {
            Log.info("shm-floor always spins: --poll block does not apply to it");
        }
        if (o.size != 8) {
            Log.info("shm-floor moves one 8-byte counter whatever --size says");
        }
        Path file = ShmFloorChannel.newFile();
        try (ShmFloorChannel channel = ShmFloorChannel.map(file, true);
             PeerSide peer = ForkedPeer.start(Transport.SHM_FLOOR.id(),
                     List.of("--file", file.toString(), "--max-seconds", Long.toString(maxPeerSeconds(o))))) {
            deleteQuietly(file); // both ends have it mapped now; nothing is left behind whatever happens next
            return ShmFloorClient.run(channel, peer, CpuMeter.process(), o);
        } finally {
            deleteQuietly(file);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            Log.info("cannot delete " + file + ": " + e.getMessage());
        }
    }

    /** The peer's own limit: the run plus generous time for start-up, connection and teardown. */
    private static long maxPeerSeconds(PerfOptions o) {
        return (long) Math.ceil(o.warmupSeconds + o.durationSeconds) + 120;
    }
}
