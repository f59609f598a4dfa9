package io.reactorrdma.examples.ps.shard;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.tools.cli.CommandLines;
import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;

/**
 * A shard as a process: serves {@link ShardServer} until its stdin reaches EOF or it gets SIGTERM,
 * then disposes everything and exits 0 — so a parent that dies (closing the pipe) takes its shards
 * with it. When serving it prints exactly one line {@code SHARD-READY index=<i> rdma=<port>
 * tcp=<port> pid=<pid>} on stdout. The line {@code meters} on stdin prints one line
 * {@code METERS name=value ...} with the sums of the engine's {@code rdma.*} meters. Options: {@link ShardArguments}
 * (picocli); bad options: a usage error on stderr and exit 2.
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

    private ShardMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs a shard until stdin closes or the JVM is told to stop; returns the exit status (0, 1 failed, 2 usage). */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        ShardArguments o = new ShardArguments();
        CommandLine cl = CommandLines.of(o, out, err);
        Integer status = CommandLines.parse(cl, args);
        if (status != null) {
            return status;
        }
        ShardConfig config;
        try {
            config = o.config();
        } catch (IllegalArgumentException e) {
            err.println("shard: " + e.getMessage());
            err.print(cl.getUsageMessage());
            return 2;
        }
        String host = o.host;
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RdmaResources resources;
        try {
            resources = o.rdma.rdmaResources(resourcesName(config.index()), registry);
        } catch (UsageException e) {
            err.println("shard: " + e.getMessage());
            err.print(cl.getUsageMessage());
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
                    new InetSocketAddress(host, o.rdmaPort),
                    new InetSocketAddress(host, o.tcpPort)).block(START_TIMEOUT);
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
