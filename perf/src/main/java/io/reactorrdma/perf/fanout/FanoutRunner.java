package io.reactorrdma.perf.fanout;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.perf.cli.FanoutClient;
import io.reactorrdma.perf.cli.Log;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.measure.RdmaEchoResources;
import io.reactorrdma.perf.measure.CpuMeter;
import io.reactorrdma.perf.measure.EngineMeters;
import io.reactorrdma.perf.measure.Patterns;
import io.reactorrdma.perf.peer.ForkedPeer;
import io.reactorrdma.perf.peer.PeerReporter;
import io.reactorrdma.perf.report.Result;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.rsocket.transport.ClientTransport;
import io.rsocket.transport.netty.client.TcpClientTransport;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The {@code fanout} scenario on one transport: {@code --shards} shards of {@code --replicas}
 * replicas each, served by {@code --replicas} forked JVMs (JVM {@code r} hosts replica {@code r}
 * of every shard, so a shard's replicas never share a process), and, once a fan-out per replica set has connected every
 * replica, {@code --connections}
 * closed-loop callers in this JVM, each fanning every request out to all shards through a
 * {@link ShardFanOut} ({@link #connect}). {@code --slow-replica MS} delays every answer of replica 0
 * of shard 0. Figures per fan-out: its whole time (first send to last answer), this process's CPU
 * and the server JVMs' CPU together.
 */
public final class FanoutRunner {

    static final String CLIENT = "fanout-client";
    /** Caller {@code i} draws its sizes from seed {@code SEED + i}: every run sends the same sequence. */
    static final long SEED = 42;
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(60);
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(60);

    private FanoutRunner() {
    }

    /**
     * The shard client the scenario measures, over {@code replicas.get(shard)}: the transports to that
     * shard's replicas. {@code --client shard} (default): the recovery layer's ShardClient per shard
     * and FanOut, hedging as {@code --hedging} says, its meters in {@code registry};
     * {@code --client plain}: RSocket's load balancer per shard.
     */
    static ShardFanOut connect(PerfOptions o, List<List<ClientTransport>> replicas, MeterRegistry registry) {
        return o.fanoutClient == FanoutClient.PLAIN ? new LoadbalancedFanOut(replicas)
                : new RecoveringFanOut(replicas, o.hedging, o.hedgeQuantile, registry);
    }

    /** A run's figures and what the shard client counted in its measured phase. */
    record Outcome(Result result, RecoveryCounts counts) {
    }

    /** Runs {@code fanout} over rdma-shm or tcp and returns its figures. */
    public static Result run(PerfOptions o, Transport t) {
        return runCounted(o, t).result();
    }

    /** {@link #run}, with the hedges and retries of the measured phase. */
    static Outcome runCounted(PerfOptions o, Transport t) {
        if (t != Transport.RDMA_SHM && t != Transport.TCP) {
            throw new PerfException("fanout does not run on " + t.id() + "; it runs on rdma-shm and tcp");
        }
        boolean rdma = t == Transport.RDMA_SHM;
        Log.info(String.format(Locale.ROOT, "fanout on %s: %d shards x %d replicas in %d server JVM(s), %d caller(s), client %s, "
                        + "sizes %s%s", t.id(), o.shards, o.replicas, o.replicas, o.connections,
                o.fanoutClient == FanoutClient.PLAIN ? "plain (RSocket's load balancer per shard)"
                        : "shard (ShardClient per shard + FanOut, hedging "
                                + (o.hedging ? "on after " + o.hedgeQuantileLabel() : "off") + ")",
                SizeMix.describe(),
                o.slowReplicaMillis > 0 ? ", replica 0 of shard 0 answers " + o.slowReplicaMillis + " ms late" : ""));
        List<ForkedPeer> peers = new ArrayList<>();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RdmaResources resources = null;
        ShardFanOut fan = null;
        ByteBuf template = null;
        try {
            for (int r = 0; r < o.replicas; r++) {
                peers.add(ForkedPeer.launch(rdma ? "fanout-rdma" : "fanout-tcp", peerArgs(o, r)));
            }
            List<List<Integer>> ports = new ArrayList<>();
            for (ForkedPeer p : peers) {
                p.awaitReady();
                ports.add(Arrays.stream(p.awaitReport(PeerReporter.PORTS).split(",")).map(Integer::valueOf).collect(Collectors.toList()));
            }
            ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
            if (rdma) {
                resources = RdmaEchoResources.create(CLIENT, "shm", o.poll, registry);
                // the template is sent to every replica: memory every peer may read, so each sub-request is pulled where it lies
                alloc = resources.allocator().remoteReadableByteBufAllocator();
            }
            List<List<ClientTransport>> replicas = new ArrayList<>();
            for (int shard = 0; shard < o.shards; shard++) {
                List<ClientTransport> shardReplicas = new ArrayList<>();
                for (int r = 0; r < o.replicas; r++) {
                    int port = ports.get(r).get(shard);
                    shardReplicas.add(rdma
                            ? RdmaClientTransport.create(RdmaClient.create().host("127.0.0.1").port(port).runOn(resources))
                            : TcpClientTransport.create("127.0.0.1", port));
                }
                replicas.add(shardReplicas);
            }
            fan = connect(o, replicas, registry);
            template = alloc.directBuffer(SizeMix.max(), SizeMix.max());
            Patterns.fill(template.nioBuffer(0, SizeMix.max()), SEED);
            template.writerIndex(SizeMix.max());
            return measure(o, t, fan, new FanoutLoop(fan, template), peers, rdma ? registry : null);
        } finally {
            try {
                if (fan != null) {
                    fan.close();
                }
            } finally {
                if (template != null) {
                    template.release();
                }
                peers.forEach(ForkedPeer::close);
                if (resources != null) {
                    resources.dispose();
                    long live = resources.allocator().liveBuffers();
                    if (live != 0) {
                        throw new PerfException("the fan-out client's registered allocator still holds " + live + " buffers after the run: "
                                + "a frame or payload was not released (run with -Dio.netty.leakDetection.level=paranoid)");
                    }
                }
            }
        }
    }

    /** {@code engineRegistry}: where the client's RDMA engine counts (its meters are printed), null over TCP. */
    private static Outcome measure(PerfOptions o, Transport t, ShardFanOut fan, FanoutLoop loop, List<ForkedPeer> peers,
                                   MeterRegistry engineRegistry) {
        loop.prime(o.replicas, CONNECT_TIMEOUT);
        loop.start(o.connections, SEED);
        sleepNanos(o.warmupNanos());
        CpuMeter cpu = CpuMeter.process();
        peers.forEach(ForkedPeer::markCpu);
        long cpu0 = cpu.nanos();
        RecoveryCounts counts0 = fan.counts();
        EngineMeters engine0 = engineRegistry == null ? EngineMeters.NONE : EngineMeters.snapshot(engineRegistry);
        long t0 = System.nanoTime();
        loop.measure();
        sleepNanos(o.durationNanos());
        loop.end();
        long elapsed = System.nanoTime() - t0;
        RecoveryCounts counts = fan.counts().minus(counts0);
        EngineMeters engine = engineRegistry == null ? EngineMeters.NONE : EngineMeters.snapshot(engineRegistry).minus(engine0);
        long clientCpu = CpuMeter.delta(cpu0, cpu.nanos());
        peers.forEach(ForkedPeer::markCpu);
        long serverCpu = 0;
        for (ForkedPeer p : peers) {
            long n = p.cpuNanosBetweenMarks();
            serverCpu = n < 0 || serverCpu < 0 ? -1 : serverCpu + n;
        }
        loop.awaitIdle(DRAIN_NANOS);
        long ops = loop.fanOuts();
        Histogram h = loop.latencies();
        double seconds = elapsed / 1e9;
        Result r = new Result(o.scenario, t, (int) Math.round(SizeMix.meanBytes()), ops, ops == 0 ? null : h,
                loop.bytes() / (double) (1 << 20) / seconds, Result.usPerOp(clientCpu, ops), Result.usPerOp(serverCpu, ops), -1);
        Log.info(String.format(Locale.ROOT, "fanout on %s: %.1f fan-outs/s (%d in %.1f s); whole fan-out mean %.1f us, p50 %.1f us, "
                        + "p99 %.1f us; CPU per fan-out: client %.1f us, servers %.1f us", t.id(), ops / seconds, ops, seconds,
                ops == 0 ? Double.NaN : h.getMean() / 1e3, ops == 0 ? Double.NaN : h.getValueAtPercentile(50) / 1e3,
                ops == 0 ? Double.NaN : h.getValueAtPercentile(99) / 1e3, r.clientCpuUsPerOp(), r.serverCpuUsPerOp()));
        if (o.fanoutClient == FanoutClient.SHARD) {
            Log.info("fanout on " + t.id() + ", measured phase: " + counts.describe());
        }
        if (!engine.isEmpty()) {
            Log.info("fanout on " + t.id() + ", the client's RDMA engine in the measured phase: " + engine.describe(ops * o.shards));
        }
        if (fan instanceof RecoveringFanOut rf) {
            // the weighted balancer steers away from a slow replica: how much of shard 0 it still got shows what hedging can cut
            Log.info("fanout on " + t.id() + ": shard 0's requests by replica, whole run: " + rf.requestsSent(0));
        }
        return new Outcome(r, counts);
    }

    /** The server JVM {@code r}'s arguments: one server per shard, the slow one at index 0 of JVM 0. */
    private static List<String> peerArgs(PerfOptions o, int r) {
        boolean slow = r == 0 && o.slowReplicaMillis > 0;
        return List.of("--poll", o.poll.id(), "--count", Integer.toString(o.shards),
                "--slow-index", slow ? "0" : "-1", "--slow-ms", Long.toString(o.slowReplicaMillis),
                "--max-seconds", Long.toString((long) Math.ceil(o.warmupSeconds + o.durationSeconds) + 180));
    }

    private static void sleepNanos(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PerfException("interrupted during the run", e);
        }
    }
}
