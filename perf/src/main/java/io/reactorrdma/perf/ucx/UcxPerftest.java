package io.reactorrdma.perf.ucx;

import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.peer.ChildProcesses;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * UCX's benchmark, {@code ucx_perftest} (Debian's ucx-utils, UCX 1.13.1), run as two processes on this host: a server
 * {@code ucx_perftest -t TEST -s SIZE -n ITERS -w WARMUP -p PORT} and a client {@code ucx_perftest 127.0.0.1} with the
 * same options, both with {@code UCX_TLS=sm,self} (UCX's shared-memory transports; {@code LC_ALL=C} keeps its numbers
 * parseable). The two exchange their addresses over a TCP connection to the port; the data moves through shared memory.
 * The client prints the {@code Final:} line ({@link UcxFinal}).
 *
 * <p>Where the executable is comes from the constructor's argument ({@link #at}) or the PATH ({@link #onPath}); there
 * is no global setting. Both processes are destroyed when a run ends, however it ends (failure, timeout, interrupt),
 * and by a shutdown hook if this JVM exits first ({@link ChildProcesses}).
 *
 * <p>The client connects to 127.0.0.1. ucx_perftest 1.13.1 has no option for the server's bind address: its
 * rendezvous socket listens on every interface (0.0.0.0) until the client has connected, then closes. The port is one
 * the loopback interface had free a moment before (retried on another port if the server cannot bind it).
 */
public final class UcxPerftest {

    /** The executable's name, looked for on the PATH. */
    public static final String EXECUTABLE = "ucx_perftest";
    /** The environment both processes get on top of ours: shared memory and self only, C number formats. */
    public static final Map<String, String> ENVIRONMENT = environment();
    /** Where the client connects. */
    static final String HOST = "127.0.0.1";

    /** How long the client is retried while the server is not listening yet (its start-up). */
    private static final long CONNECT_WINDOW_MILLIS = 10_000;
    private static final long CONNECT_RETRY_MILLIS = 20;
    /** Ports tried when the server cannot bind the port found free (another process took it in between). */
    private static final int PORT_ATTEMPTS = 3;
    /** How long the server may take to exit after its client has (it only tears down). */
    private static final long SERVER_EXIT_MILLIS = 5_000;
    /** How long the rest of a process's output may take to be read once it has exited. */
    private static final long READER_JOIN_MILLIS = 5_000;
    /** Lines of each process's output that an error quotes. */
    static final int QUOTED_LINES = 8;

    /** What ucx_perftest runs. */
    public enum Mode {
        /** UCP tag-matched ping-pong ({@code -t tag_lat}): an iteration is a round trip, but the latencies printed are half of one. */
        TAG_LAT("tag_lat", 2),
        /** UCP tag-matched stream from the client to the server ({@code -t tag_bw}), 32 messages outstanding (its default window). */
        TAG_BW("tag_bw", 1);

        private final String test;
        private final int factor;

        Mode(String test, int factor) {
            this.test = test;
            this.factor = factor;
        }

        /** The name {@code -t} takes. */
        public String test() {
            return test;
        }

        /**
         * What ucx_perftest divides an iteration's time by to print its latencies, and multiplies the bytes and
         * messages of an iteration by for its bandwidth and message rate: 2 for the ping-pong (one way, both
         * directions' bytes), 1 for the stream.
         */
        public int factor() {
            return factor;
        }
    }

    private final Path executable;
    /** Why there is no executable (null when there is one). */
    private final String missing;

    private UcxPerftest(Path executable, String missing) {
        this.executable = executable;
        this.missing = missing;
    }

    /** ucx_perftest as the PATH finds it (the first executable file of that name), or a missing one. */
    public static UcxPerftest onPath() {
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                if (dir.isEmpty()) {
                    continue;
                }
                try {
                    Path p = Path.of(dir, EXECUTABLE);
                    if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                        return new UcxPerftest(p, null);
                    }
                } catch (InvalidPathException e) {
                    // not a directory name this file system knows; the next one
                }
            }
        }
        return new UcxPerftest(null, EXECUTABLE + " is not on the PATH");
    }

    /** ucx_perftest at {@code executable}; missing ({@link #available()} false) when that is not an executable file. */
    public static UcxPerftest at(Path executable) {
        boolean runs = Files.isRegularFile(executable) && Files.isExecutable(executable);
        return new UcxPerftest(runs ? executable : null, runs ? null : executable + " is not an executable file");
    }

    /** Whether there is an executable to run. */
    public boolean available() {
        return executable != null;
    }

    /** The executable, or null when {@link #available()} is false. */
    public Path executable() {
        return executable;
    }

    /** The one line the CLI prints when the ucx transport is skipped because there is no ucx_perftest. */
    public String missingNote() {
        return "ucx: " + missing + "; skipped (install it with `apt-get install ucx-utils` on Debian/Ubuntu, "
                + "or build openucx from https://github.com/openucx/ucx, which installs " + EXECUTABLE + ")";
    }

    /** The options of a run, after the host (client) or first (server): {@code -t TEST -s SIZE -n ITERS -w WARMUP -p PORT}. */
    static List<String> options(Mode mode, int size, long iterations, long warmup, int port) {
        return options(mode, size, iterations, warmup, port, UcxFinal.DEFAULT_RANK);
    }

    /** As {@link #options(Mode, int, long, long, int)}, with {@code -R RANK} where the percentile is not its default 50. */
    static List<String> options(Mode mode, int size, long iterations, long warmup, int port, double rank) {
        List<String> o = new ArrayList<>(List.of("-t", mode.test(), "-s", Integer.toString(size), "-n", Long.toString(iterations),
                "-w", Long.toString(warmup), "-p", Integer.toString(port)));
        if (rank != UcxFinal.DEFAULT_RANK) {
            o.add("-R");
            o.add(String.format(Locale.ROOT, "%.1f", rank));
        }
        return List.copyOf(o);
    }

    /** The server's command line ({@code host} null) or the client's. */
    List<String> command(String host, List<String> options) {
        List<String> c = new ArrayList<>();
        c.add(executable.toString());
        if (host != null) {
            c.add(host);
        }
        c.addAll(options);
        return c;
    }

    /** A command line as a shell would take it, with the environment set for it. */
    static String describe(List<String> command) {
        String env = ENVIRONMENT.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
        return env + " " + String.join(" ", command);
    }

    /**
     * Runs {@code mode} once: a server and a client, {@code iterations} measured after up to {@code warmup} warm-up
     * iterations, of {@code size}-byte messages; returns the client's {@code Final:} line.
     *
     * @param timeout how long the whole run may take, both processes' start-up included
     * @throws PerfException when there is no executable, a process fails or outlasts {@code timeout}, this thread is
     *                       interrupted, or the client's output has no readable {@code Final:} line: naming the command
     *                       lines and quoting their output's last lines
     */
    public UcxFinal run(Mode mode, int size, long iterations, long warmup, Duration timeout) {
        return run(mode, size, iterations, warmup, timeout, UcxFinal.DEFAULT_RANK);
    }

    /** As {@link #run(Mode, int, long, long, Duration)}, its latency percentile at {@code rank} ({@code -R}). */
    public UcxFinal run(Mode mode, int size, long iterations, long warmup, Duration timeout, double rank) {
        if (!available()) {
            throw new PerfException(missingNote());
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int attempt = 1; ; attempt++) {
            List<String> options = options(mode, size, iterations, warmup, freePort(), rank);
            try (Child server = Child.start(command(null, options))) {
                Child client = runClient(server, command(HOST, options), deadline, timeout);
                if (client.exitCode() != 0) {
                    if (attempt < PORT_ATTEMPTS && server.awaitExit(System.nanoTime()) && server.said("Address already in use")) {
                        continue; // the port was taken between our look and the server's bind
                    }
                    throw failure(EXECUTABLE + " failed (exit status " + client.exitCode() + ")", server, client);
                }
                server.awaitExit(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SERVER_EXIT_MILLIS));
                try {
                    return UcxFinal.parse(client.lines());
                } catch (IllegalArgumentException e) {
                    throw failure("cannot read " + EXECUTABLE + "'s output: " + e.getMessage(), server, client);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PerfException("interrupted while " + EXECUTABLE + " ran; its processes were destroyed", e);
            }
        }
    }

    /**
     * Runs the client until it exits; while it finds the server not listening yet (connection refused) and the server
     * lives, again, for up to {@link #CONNECT_WINDOW_MILLIS}. Returns the client that exited last (closed).
     */
    private static Child runClient(Child server, List<String> command, long deadline, Duration timeout) throws InterruptedException {
        long connectBy = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CONNECT_WINDOW_MILLIS);
        while (true) {
            try (Child client = Child.start(command)) {
                if (!client.awaitExit(deadline)) {
                    throw failure(EXECUTABLE + " did not finish within " + seconds(timeout) + "; both processes destroyed", server, client);
                }
                boolean refused = client.exitCode() != 0 && client.said("Connection refused");
                if (!refused || !server.alive() || System.nanoTime() - connectBy > 0) {
                    return client;
                }
            }
            Thread.sleep(CONNECT_RETRY_MILLIS);
        }
    }

    private static PerfException failure(String what, Child server, Child client) {
        StringBuilder b = new StringBuilder(what);
        b.append(System.lineSeparator()).append("  client: ").append(describe(client.command));
        b.append(System.lineSeparator()).append("  server: ").append(describe(server.command));
        quote(b, "client", client);
        quote(b, "server", server);
        return new PerfException(b.toString());
    }

    private static void quote(StringBuilder b, String who, Child child) {
        List<String> lines = child.lines();
        List<String> last = lines.subList(Math.max(0, lines.size() - QUOTED_LINES), lines.size());
        b.append(System.lineSeparator()).append("  ").append(who).append("'s last ").append(last.size()).append(" line(s) of output")
                .append(child.alive() ? "" : " (exit status " + child.exitCode() + ")").append(last.isEmpty() ? ": none" : ":");
        for (String line : last) {
            b.append(System.lineSeparator()).append("    | ").append(line);
        }
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1e3);
    }

    /** A TCP port free on the loopback interface a moment ago. */
    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free port on the loopback interface", e);
        }
    }

    private static Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("UCX_TLS", "sm,self");
        env.put("LC_ALL", "C");
        return Collections.unmodifiableMap(env); // in this order in the messages
    }

    /** A child process, its standard output and error merged and kept (the first lines and the last). */
    static final class Child implements AutoCloseable {

        /** Lines kept from the start (the table's heading) and from the end (the Final: line, the errors). */
        private static final int HEAD_LINES = 64;
        private static final int TAIL_LINES = 4096;

        final List<String> command;
        private final Process process;
        private final Thread reader;
        private final List<String> head = new ArrayList<>();
        private final Deque<String> tail = new ArrayDeque<>();
        private long dropped;

        private Child(List<String> command, Process process) {
            this.command = List.copyOf(command);
            this.process = process;
            this.reader = new Thread(this::read, "perf-ucx-output-" + process.pid());
            this.reader.setDaemon(true);
        }

        static Child start(List<String> command) {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            pb.environment().putAll(ENVIRONMENT);
            Process p;
            try {
                p = pb.start();
            } catch (IOException e) {
                throw new PerfException("cannot start " + describe(command) + ": " + e.getMessage(), e);
            }
            ChildProcesses.add(p);
            try {
                p.getOutputStream().close(); // it reads nothing
            } catch (IOException e) {
                // nothing to close
            }
            Child c = new Child(command, p);
            c.reader.start();
            return c;
        }

        private void read() {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    add(line);
                }
            } catch (IOException e) {
                // the process is gone
            }
        }

        private synchronized void add(String line) {
            if (head.size() < HEAD_LINES) {
                head.add(line);
                return;
            }
            tail.addLast(line);
            if (tail.size() > TAIL_LINES) {
                tail.removeFirst();
                dropped++;
            }
        }

        /** Its output so far: the first lines, a note of any left out, the last. */
        synchronized List<String> lines() {
            List<String> all = new ArrayList<>(head);
            if (dropped > 0) {
                all.add("(" + dropped + " lines left out)");
            }
            all.addAll(tail);
            return all;
        }

        boolean said(String text) {
            return lines().stream().anyMatch(l -> l.contains(text));
        }

        boolean alive() {
            return process.isAlive();
        }

        int exitCode() {
            return process.exitValue();
        }

        /** Waits until it has exited and its output is read, up to {@code deadline} ({@link System#nanoTime()}); false if it still runs. */
        boolean awaitExit(long deadline) throws InterruptedException {
            if (!process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                return false;
            }
            reader.join(READER_JOIN_MILLIS);
            return true;
        }

        /** Destroys it unless it has exited (SIGTERM, then SIGKILL), and waits for it to be gone. */
        @Override
        public void close() {
            boolean interrupted = false;
            try {
                if (process.isAlive()) {
                    process.destroy();
                    try {
                        if (!process.waitFor(2, TimeUnit.SECONDS)) {
                            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                        }
                    } catch (InterruptedException e) {
                        interrupted = true;
                        process.destroyForcibly();
                    }
                }
            } finally {
                ChildProcesses.remove(process);
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
