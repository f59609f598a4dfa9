package io.reactorrdma.examples.ps.shard;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactorrdma.RdmaResources;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;

/**
 * A shard as a process: serves {@link ShardServer} until its stdin reaches EOF or it gets SIGTERM,
 * then disposes everything and exits 0 — so a parent that dies (closing the pipe) takes its shards
 * with it. When serving it prints exactly one line {@code SHARD-READY index=<i> rdma=<port>
 * tcp=<port> pid=<pid>} on stdout. The line {@code meters} on stdin prints one line
 * {@code METERS name=value ...} with the sums of the engine's {@code rdma.*} meters. Bad options:
 * a usage error on stderr and exit 2.
 *
 * <pre>
 * java -cp ps-demo.jar io.reactorrdma.examples.ps.shard.ShardMain --index 0 --count 4 --provider shm
 * </pre>
 */
public final class ShardMain {

    /** Ports when not given: 0 (any free port; the READY line says which). */
    public static final int DEFAULT_PORT = 0;
    /** Host to bind when not given: 127.0.0.1. */
    public static final String DEFAULT_HOST = "127.0.0.1";
    /** How long the listeners may take to bind: 30 s. */
    public static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    /**
     * The name of shard {@code index}'s {@code RdmaResources}: {@code shard-<index>}; its I/O
     * threads are named after it ({@code shard-<index>-io-<n>}).
     */
    public static String resourcesName(int index) {
        return "shard-" + index;
    }
    /** How long closing may take: 10 s. */
    public static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    static final String USAGE = "usage: shard --index I --count N [--rows R] [--dim D] [--seed S] [--lr X] [--slow-ms MS]\n"
            + "             [--host H] [--rdma-port P] [--tcp-port P] [--provider auto|shm|disni] [--shm-dir DIR]\n"
            + "             [--send-window-bytes B] [--idle block|backoff|spin]\n"
            + "  serves until stdin closes or SIGTERM; prints SHARD-READY index=<i> rdma=<port> tcp=<port> pid=<pid>";
    private static final Set<String> OPTIONS = Set.of("index", "count", "rows", "dim", "seed", "lr", "slow-ms", "host",
            "rdma-port", "tcp-port", "provider", "shm-dir", "send-window-bytes", "idle");

    private ShardMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs a shard until stdin closes or the JVM is told to stop; returns the exit status (0, 1 failed, 2 usage). */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        ShardConfig config;
        MainOptions o;
        try {
            o = MainOptions.parse(args, OPTIONS);
            o.required("index");
            o.required("count");
            config = new ShardConfig(o.integer("index", -1, 0), o.integer("count", -1, 1),
                    o.integer("rows", ShardConfig.DEFAULT_ROWS, 1), o.integer("dim", ShardConfig.DEFAULT_DIMENSION, 1),
                    (float) o.decimal("lr", ShardConfig.DEFAULT_LEARNING_RATE), o.longValue("seed", ShardConfig.DEFAULT_SEED, Long.MIN_VALUE),
                    o.integer("slow-ms", ShardConfig.DEFAULT_SLOW_MILLIS, 0));
        } catch (IllegalArgumentException e) {
            err.println("shard: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        String host = o.string("host", DEFAULT_HOST);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RdmaResources resources;
        try {
            resources = o.rdmaResources(resourcesName(config.index()), registry);
        } catch (MainOptions.UsageException e) {
            err.println("shard: " + e.getMessage());
            err.println(USAGE);
            return 2;
        } catch (RuntimeException e) {
            err.println("shard " + config.index() + ": cannot start the RDMA provider: " + e.getMessage());
            return 1;
        }
        ShardServer server = null;
        CountDownLatch stop = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            // SIGTERM: let run() close everything, then exit 0 (a plain JVM exit on a signal would be 143)
            stop.countDown();
            try {
                closed.await(CLOSE_TIMEOUT.toMillis() * 2, java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Runtime.getRuntime().halt(0);
        }, "shard-sigterm");
        try {
            server = ShardServer.start(config, resources,
                    new InetSocketAddress(host, o.integer("rdma-port", DEFAULT_PORT, 0)),
                    new InetSocketAddress(host, o.integer("tcp-port", DEFAULT_PORT, 0))).block(START_TIMEOUT);
            Runtime.getRuntime().addShutdownHook(hook);
            out.println("SHARD-READY index=" + config.index() + " rdma=" + server.rdmaPort() + " tcp=" + server.tcpPort()
                    + " pid=" + ProcessHandle.current().pid());
            out.flush();
            watchStdin(stop, registry, out);
            stop.await();
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        } catch (RuntimeException e) {
            err.println("shard " + config.index() + " failed: " + e.getMessage());
            return 1;
        } finally {
            if (server != null) {
                server.dispose();
                try {
                    server.onClose().block(CLOSE_TIMEOUT);
                } catch (RuntimeException e) {
                    err.println("shard " + config.index() + ": closing took over " + CLOSE_TIMEOUT.toSeconds() + " s: " + e.getMessage());
                }
            }
            resources.dispose();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // SIGTERM: the hook is running and halts the JVM with 0 once we are closed
            }
            out.flush();
            closed.countDown();
        }
    }

    /** Reads commands from stdin on a daemon thread; EOF (the parent closed the pipe or died) stops the shard. */
    private static void watchStdin(CountDownLatch stop, SimpleMeterRegistry registry, PrintStream out) {
        Thread t = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.trim().equals("meters")) {
                        out.println(meters(registry));
                        out.flush();
                    }
                }
            } catch (java.io.IOException e) {
                // a broken pipe is EOF too
            }
            stop.countDown();
        }, "shard-stdin");
        t.setDaemon(true);
        t.start();
    }

    /** {@code METERS name=value ...}: each {@code rdma.*} counter summed over domains, gauges at their maximum. */
    static String meters(SimpleMeterRegistry registry) {
        Map<String, Double> sums = new TreeMap<>();
        for (Meter m : registry.getMeters()) {
            String name = m.getId().getName();
            if (m instanceof FunctionCounter) {
                sums.merge(name, ((FunctionCounter) m).count(), Double::sum);
            } else if (m instanceof Gauge) {
                sums.merge(name, ((Gauge) m).value(), Math::max);
            }
        }
        StringBuilder b = new StringBuilder("METERS");
        sums.forEach((k, v) -> b.append(' ').append(k).append('=').append(v.longValue()));
        return b.toString();
    }
}
