package io.reactorrdma.examples.ps.demo.process;

import io.reactorrdma.tools.launch.ChildJvm;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The shard replicas this demo runs as child processes: {@code shards x replicas} {@code ShardMain}
 * JVMs started with this JVM's java binary and class path, all at once (their start-ups overlap),
 * serving RDMA and TCP on ports they pick. One replica can be killed and restarted on the same ports.
 * {@link #close()} stops them all; a JVM shutdown hook kills whatever is left if the demo ends any
 * other way (an exception, Ctrl-C).
 */
public final class ShardFleet implements ShardAddresses, AutoCloseable {

    /** The shard program the children run. */
    public static final String SHARD_MAIN = "io.reactorrdma.examples.ps.shard.ShardMain";
    /**
     * The children's JVM options: a small heap (the table lives in registered memory, not on the
     * heap) and the serial collector, so that many shard JVMs share a 2-core host without each
     * starting a parallel collector's threads; and C1 only ({@code -XX:TieredStopAtLevel=1}): with
     * tiered compilation the shards' C2 compiler threads took more CPU than their I/O threads for the
     * whole of an inference run (8 JVMs compiling the same code each, on 2 cores, and more of it over
     * RDMA: engine and soft provider beside RSocket), so the CPU per request measured the JIT, not
     * the transport (docs/PERFORMANCE.md, "The demo's inference: where the shards' CPU goes").
     */
    public static final List<String> DEFAULT_JVM_OPTIONS = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "ps-demo-kill-shards"));
    }

    private final ShardSpec spec;
    private final int shards;
    private final int replicas;
    private final Path logDir;
    private final ShardProcess[][] processes;
    private final int[][] rdmaPorts;
    private final int[][] tcpPorts;

    private ShardFleet(ShardSpec spec, int shards, int replicas, Path logDir) {
        this.spec = spec;
        this.shards = shards;
        this.replicas = replicas;
        this.logDir = logDir;
        this.processes = new ShardProcess[shards][replicas];
        this.rdmaPorts = new int[shards][replicas];
        this.tcpPorts = new int[shards][replicas];
    }

    /**
     * Starts every replica and waits until each has printed SHARD-READY; on failure kills those
     * started and throws, naming the replica and its log. Logs go to {@code logDir}.
     */
    public static ShardFleet start(ShardSpec spec, int shards, int replicas, Path logDir) {
        ShardFleet fleet = new ShardFleet(spec, shards, replicas, logDir);
        try {
            Files.createDirectories(logDir);
            for (int s = 0; s < shards; s++) {
                for (int r = 0; r < replicas; r++) {
                    fleet.launch(s, r, 0, 0);
                }
            }
            for (int s = 0; s < shards; s++) {
                for (int r = 0; r < replicas; r++) {
                    fleet.awaitReady(s, r);
                }
            }
            return fleet;
        } catch (IOException e) {
            fleet.close();
            throw new IllegalStateException("cannot create the shard log directory " + logDir + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            fleet.close();
            throw e;
        }
    }

    private void launch(int shard, int replica, int rdmaPort, int tcpPort) {
        List<String> command = command(spec.arguments(shard, shards, rdmaPort, tcpPort));
        ShardProcess p = ShardProcess.start(shard, replica, command, logDir.resolve("shard-" + shard + "-replica-" + replica + ".log"));
        LIVE.add(p.process());
        processes[shard][replica] = p;
    }

    private void awaitReady(int shard, int replica) {
        int[] ports = processes[shard][replica].awaitReady(ShardProcess.DEFAULT_READY_TIMEOUT);
        rdmaPorts[shard][replica] = ports[0];
        tcpPorts[shard][replica] = ports[1];
    }

    /**
     * The child's command line: this JVM's java, {@link #DEFAULT_JVM_OPTIONS}, our reactor.rdma.* and io.netty.*
     * properties, our class path.
     */
    static List<String> command(List<String> shardArguments) {
        return ChildJvm.of(ShardFleet.class, SHARD_MAIN).withJvmOptions(DEFAULT_JVM_OPTIONS)
                // the shm directory is the demo's own, given with --shm-dir
                .forwarding(name -> ChildJvm.libraryProperty(name) && !name.equals("reactor.rdma.soft.shmDir"))
                .command(shardArguments);
    }

    /** SIGKILLs one replica and waits for it to end. */
    public void kill(int shard, int replica) {
        ShardProcess p = processes[shard][replica];
        p.kill();
        LIVE.remove(p.process());
    }

    /** Starts a killed replica again on its old ports and waits until it serves. */
    public void restart(int shard, int replica) {
        if (processes[shard][replica].isAlive()) {
            throw new IllegalStateException("shard " + shard + " replica " + replica + " is still running; kill it first");
        }
        launch(shard, replica, rdmaPorts[shard][replica], tcpPorts[shard][replica]);
        int rdma = rdmaPorts[shard][replica];
        int tcp = tcpPorts[shard][replica];
        awaitReady(shard, replica);
        if (rdmaPorts[shard][replica] != rdma || tcpPorts[shard][replica] != tcp) {
            throw new IllegalStateException("shard " + shard + " replica " + replica + " came back on rdma=" + rdmaPorts[shard][replica]
                    + " tcp=" + tcpPorts[shard][replica] + ", not on its old ports " + rdma + "/" + tcp);
        }
    }

    /** CPU time all replicas used so far (user + system), in nanoseconds; -1 when one cannot tell. */
    public long cpuNanos() {
        long sum = 0;
        for (ShardProcess[] row : processes) {
            for (ShardProcess p : row) {
                long t = p.cpuNanos();
                if (t < 0) {
                    return -1;
                }
                sum += t;
            }
        }
        return sum;
    }

    /** The operating-system process ids of every replica, shard by shard, as text (the name of its /proc directory). */
    public List<String> pids() {
        List<String> pids = new ArrayList<>();
        for (ShardProcess[] row : processes) {
            for (ShardProcess p : row) {
                pids.add(Long.toString(p.pid()));
            }
        }
        return pids;
    }

    /** The operating-system process id of one replica. */
    public long pid(int shard, int replica) {
        return processes[shard][replica].pid();
    }

    @Override
    public int shards() {
        return shards;
    }

    @Override
    public int replicas() {
        return replicas;
    }

    @Override
    public InetSocketAddress rdma(int shard, int replica) {
        return new InetSocketAddress(spec.host(), rdmaPorts[shard][replica]);
    }

    @Override
    public InetSocketAddress tcp(int shard, int replica) {
        return new InetSocketAddress(spec.host(), tcpPorts[shard][replica]);
    }

    /** Stops every replica (stdin closed, then killed if it lingers), all at once. */
    @Override
    public void close() {
        List<Thread> stoppers = new ArrayList<>();
        for (ShardProcess[] row : processes) {
            for (ShardProcess p : row) {
                if (p != null) {
                    Thread t = new Thread(() -> {
                        p.stop();
                        LIVE.remove(p.process());
                    }, "ps-demo-stop-shard");
                    t.start();
                    stoppers.add(t);
                }
            }
        }
        for (Thread t : stoppers) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
    }
}
