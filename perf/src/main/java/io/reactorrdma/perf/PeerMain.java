package io.reactorrdma.perf;

import io.reactorrdma.perf.cli.EchoReply;
import io.reactorrdma.perf.cli.Log;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.echo.RdmaEchoServer;
import io.reactorrdma.perf.echo.TcpEchoServer;
import io.reactorrdma.perf.fanout.FanoutServers;
import io.reactorrdma.perf.floor.ShmFloorServer;
import io.reactorrdma.perf.measure.CpuMeter;
import io.reactorrdma.perf.peer.PeerCommands;
import io.reactorrdma.perf.peer.PeerReporter;
import io.reactorrdma.perf.peer.ServerTask;
import io.reactorrdma.perf.rsocket.RSocketServerEnd;
import io.reactorrdma.perf.soak.SoakServer;
import io.reactorrdma.perf.verbs.SendLatServer;
import io.reactorrdma.perf.verbs.WriteBwServer;
import io.reactorrdma.verbs.provider.Providers;
import io.reactorrdma.verbs.VerbsContext;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The forked peer: {@code PeerMain
 * <send-lat|write-bw|shm-floor|echo-rdma|echo-tcp|rsocket-rdma|rsocket-tcp|fanout-rdma|fanout-tcp|soak-server>
 * [--port N] [--size N] [--poll back-off|spin|block] [--reply echo|own] [--file PATH] [--max-seconds N] [--provider NAME] [--host ADDR]
 * [--shm-dir DIR] [--seed N] [--cancel-share F] [--standby true] [--count N] [--slow-index I] [--slow-ms MS]};
 * {@code --provider disni --host <RDMA IPv4>}
 * is the hardware peer that {@code serve} starts by hand on another host. Prints {@code KEY value} reports on standard output (see
 * {@link PeerReporter}); each {@code mark} line on standard input is answered with a {@code CPU}
 * line (this process's CPU nanoseconds). Exits when its client is done, when standard input closes
 * (the parent is gone or done), or at --max-seconds, whichever comes first.
 */
public final class PeerMain {

    /** How long the peer lets its server end finish after standard input closes. */
    private static final long GRACE_MILLIS = 2000;

    private static volatile boolean stop;
    private static final CountDownLatch START = new CountDownLatch(1);

    private PeerMain() {
    }

    public static void main(String[] args) {
        int code;
        try {
            code = run(args);
        } catch (Throwable t) {
            Log.failure("peer failed", t);
            code = 1;
        }
        System.out.flush();
        System.exit(code);
    }

    /** echo's {@code --reply}, as the parent passed it (the default: echo). */
    private static EchoReply reply(Map<String, String> opts) {
        return EchoReply.parse(opts.getOrDefault("--reply", EchoReply.ECHO.id()));
    }

    private static int run(String[] args) throws Exception {
        if (args.length == 0) {
            System.err.println("[peer] usage: PeerMain "
                    + "<send-lat|write-bw|shm-floor|echo-rdma|echo-tcp|rsocket-rdma|rsocket-tcp|fanout-rdma|fanout-tcp|soak-server> "
                    + "[--port N] [--size N] [--poll back-off|spin|block] [--file PATH] [--max-seconds N]");
            return 2;
        }
        String role = args[0];
        Map<String, String> opts = new HashMap<>();
        for (int i = 1; i + 1 < args.length; i += 2) {
            opts.put(args[i], args[i + 1]);
        }
        PrintStream out = System.out;
        PeerReporter reporter = (key, value) -> {
            synchronized (out) {
                out.println(key + " " + value);
                out.flush();
            }
        };
        startWatchdog(Long.parseLong(opts.getOrDefault("--max-seconds", "600")));
        AtomicReference<Supplier<String>> meters = new AtomicReference<>();
        startStdinWatcher(reporter, meters);
        int size = Integer.parseInt(opts.getOrDefault("--size", "8"));
        int port = Integer.parseInt(opts.getOrDefault("--port", "0"));
        PollMode mode = PollMode.parse(opts.getOrDefault("--poll", "spin"));
        String provider = opts.getOrDefault("--provider", "shm");
        String host = opts.getOrDefault("--host", "127.0.0.1");
        switch (role) {
            case "send-lat":
            case "write-bw":
                try (VerbsContext ctx = Providers.open(provider)) {
                    ServerTask task = role.equals("send-lat") ? SendLatServer.task(ctx, host, port, size, mode)
                            : WriteBwServer.task(ctx, host, port, size);
                    task.serve(reporter, () -> stop);
                }
                return 0;
            case "echo-rdma":
                RdmaEchoServer.task("shm", mode, reply(opts), meters::set).serve(reporter, () -> stop);
                return 0;
            case "echo-tcp":
                TcpEchoServer.task(reply(opts)).serve(reporter, () -> stop);
                return 0;
            case "rsocket-rdma":
                RSocketServerEnd.task(() -> RSocketServerEnd.rdma("shm", mode, size), meters::set).serve(reporter, () -> stop);
                return 0;
            case "rsocket-tcp":
                RSocketServerEnd.task(() -> RSocketServerEnd.tcp(size), m -> { }).serve(reporter, () -> stop);
                return 0;
            case "fanout-rdma":
            case "fanout-tcp":
                int count = Integer.parseInt(opts.getOrDefault("--count", "1"));
                int slowIndex = Integer.parseInt(opts.getOrDefault("--slow-index", "-1"));
                Duration slow = Duration.ofMillis(Long.parseLong(opts.getOrDefault("--slow-ms", "0")));
                String transport = role.equals("fanout-rdma") ? "rdma" : "tcp";
                FanoutServers.task(() -> FanoutServers.start(transport, mode, count, slowIndex, slow), meters::set)
                        .serve(reporter, () -> stop);
                return 0;
            case "soak-server":
                String shmDir = opts.get("--shm-dir");
                if (shmDir == null) {
                    System.err.println("[peer] soak-server needs --shm-dir");
                    return 2;
                }
                if (Boolean.parseBoolean(opts.getOrDefault("--standby", "false"))) {
                    SoakServer.preload();
                    START.await();
                }
                SoakServer.task(Paths.get(shmDir), Long.parseLong(opts.getOrDefault("--seed", "1")),
                        Double.parseDouble(opts.getOrDefault("--cancel-share", "0"))).serve(reporter, () -> stop);
                return 0;
            case "shm-floor":
                String file = opts.get("--file");
                if (file == null) {
                    System.err.println("[peer] shm-floor needs --file");
                    return 2;
                }
                ShmFloorServer.task(Paths.get(file)).serve(reporter, () -> stop);
                return 0;
            default:
                System.err.println("[peer] unknown role '" + role + "'");
                return 2;
        }
    }

    /**
     * Answers marks with CPU readings (and meter readings once the server end supplies them); when
     * standard input closes, stops the server end, then the process.
     */
    private static void startStdinWatcher(PeerReporter reporter, AtomicReference<Supplier<String>> meters) {
        CpuMeter cpu = CpuMeter.process();
        Thread t = new Thread(() -> {
            InputStream in = System.in;
            StringBuilder line = new StringBuilder();
            try {
                int c;
                while ((c = in.read()) >= 0) {
                    if (c != '\n') {
                        line.append((char) c);
                        continue;
                    }
                    String command = line.toString().trim();
                    if (command.equals(PeerCommands.STOP)) {
                        stop = true;
                    } else if (command.equals(PeerCommands.START)) {
                        START.countDown();
                    } else if (command.equals(PeerCommands.MARK)) {
                        reporter.report(PeerReporter.CPU, Long.toString(cpu.nanos()));
                        Supplier<String> m = meters.get();
                        if (m != null) {
                            reporter.report(PeerReporter.METERS, m.get());
                        }
                    }
                    line.setLength(0);
                }
            } catch (IOException e) {
                // treat as closed
            }
            stop = true;
            sleep(GRACE_MILLIS);
            System.err.println("[peer] standard input closed (the parent is gone); exiting");
            System.exit(3);
        }, "perf-peer-stdin");
        t.setDaemon(true);
        t.start();
    }

    /** Halts the process if it is still here long after any run could have ended. */
    private static void startWatchdog(long maxSeconds) {
        Thread t = new Thread(() -> {
            sleep(maxSeconds * 1000);
            System.err.println("[peer] still running after " + maxSeconds + " s; halting");
            Runtime.getRuntime().halt(4);
        }, "perf-peer-watchdog");
        t.setDaemon(true);
        t.start();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
