package io.reactorrdma.perf.peer;

import io.reactorrdma.perf.cli.Log;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.measure.CpuMeter;
import io.reactorrdma.perf.measure.EngineMeters;
import io.reactorrdma.perf.measure.MeasuredJvm;
import io.reactorrdma.perf.measure.PeerSide;
import io.reactorrdma.tools.launch.ChildJvm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A peer in a separate JVM: {@code java -cp <this jar> io.reactorrdma.perf.PeerMain <role> ...}.
 * Its standard output carries {@code KEY value} reports, its standard input carries {@code mark}
 * commands (each answered by a {@code CPU} report) and its end: the peer exits when its standard
 * input closes. Its standard error is ours. It is killed on {@link #close()} if it lingers, and by
 * a shutdown hook if this JVM exits first.
 */
public final class ForkedPeer implements PeerSide {

    private final Process process;
    private final OutputStream stdin;
    private final Map<String, CompletableFuture<String>> reports = new ConcurrentHashMap<>();
    private final BlockingQueue<Long> cpuReports = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> meterReports = new LinkedBlockingQueue<>();
    private final String role;
    private volatile boolean ended;
    private int port;

    private ForkedPeer(String role, Process process) {
        this.role = role;
        this.process = process;
        this.stdin = process.getOutputStream();
    }

    /** Forks a peer in {@code role} with {@code args} and waits until it reports READY. */
    public static ForkedPeer start(String role, List<String> args) {
        ForkedPeer peer = launch(role, args);
        try {
            peer.awaitReady();
        } catch (RuntimeException e) {
            peer.close();
            throw e;
        }
        return peer;
    }

    /** Waits until the peer reports READY; then {@link #port()} is its port. */
    public void awaitReady() {
        port = Integer.parseInt(awaitReport(PeerReporter.READY));
    }

    /** Forks a peer in {@code role} with {@code args}, without waiting for it (see {@link #awaitReady()}). */
    public static ForkedPeer launch(String role, List<String> args) {
        List<String> command = command(role, args);
        Process p;
        try {
            p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        } catch (IOException e) {
            throw new PerfException("cannot start the peer process " + command + ": " + e.getMessage(), e);
        }
        ChildProcesses.add(p);
        ForkedPeer peer = new ForkedPeer(role, p);
        Thread reader = new Thread(peer::readReports, "perf-peer-reader-" + p.pid());
        reader.setDaemon(true);
        reader.start();
        return peer;
    }

    /**
     * The peer's command line: this JVM's java binary, the measuring JVM's options as this JVM has them
     * ({@link MeasuredJvm#peerOptions()}), our reactor.rdma.* and io.netty.* properties, the jar (or class path) we run from.
     */
    static List<String> command(String role, List<String> args) {
        List<String> roleAndArgs = new ArrayList<>();
        roleAndArgs.add(role);
        roleAndArgs.addAll(args);
        return ChildJvm.of(ForkedPeer.class, PeerCommands.MAIN_CLASS).withJvmOptions(MeasuredJvm.peerOptions())
                .forwarding(ChildJvm::libraryProperty)
                .command(roleAndArgs);
    }

    private void readReports() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                int sp = line.indexOf(' ');
                String key = sp < 0 ? line : line.substring(0, sp);
                String value = sp < 0 ? "" : line.substring(sp + 1).trim();
                if (PeerReporter.CPU.equals(key)) {
                    cpuReports.add(Long.parseLong(value));
                } else if (PeerReporter.METERS.equals(key)) {
                    meterReports.add(value);
                } else if (PeerReporter.READY.equals(key) || PeerReporter.VERIFY.equals(key) || PeerReporter.SOAK.equals(key)
                        || PeerReporter.PORTS.equals(key)) {
                    future(key).complete(value);
                } else {
                    System.err.println("[peer " + role + "] " + line);
                }
            }
        } catch (IOException | RuntimeException e) {
            // the process is gone; reported below
        } finally {
            ended = true;
            PerfException gone = new PerfException("the " + role + " peer process " + process.pid() + " exited"
                    + exitCode() + " before reporting (see its messages above)");
            reports.values().forEach(f -> f.completeExceptionally(gone));
        }
    }

    private String exitCode() {
        try {
            if (process.waitFor(2, TimeUnit.SECONDS)) {
                return " with code " + process.exitValue();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "";
    }

    private CompletableFuture<String> future(String key) {
        return reports.computeIfAbsent(key, k -> {
            CompletableFuture<String> f = new CompletableFuture<>();
            if (ended) {
                f.completeExceptionally(new PerfException("the " + role + " peer process " + process.pid() + " has exited"
                        + " without reporting " + key + " (see its messages above)"));
            }
            return f;
        });
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public void markCpu() {
        send(PeerCommands.line(PeerCommands.MARK));
    }

    @Override
    public long cpuNanosBetweenMarks() {
        try {
            Long a = cpuReports.poll(REPORT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            Long b = a == null ? null : cpuReports.poll(REPORT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return a == null || b == null ? -1 : CpuMeter.delta(a, b);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    @Override
    public EngineMeters metersBetweenMarks() {
        try {
            String a = meterReports.poll(REPORT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            String b = a == null ? null : meterReports.poll(REPORT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (b == null) {
                throw new PerfException("the " + role + " peer process reported no meters at the marks within "
                        + REPORT_TIMEOUT.toSeconds() + " s (see its messages above)");
            }
            return EngineMeters.parse(b).minus(EngineMeters.parse(a));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PerfException("interrupted while waiting for the peer's meters", e);
        }
    }

    @Override
    public String awaitReport(String key) {
        try {
            return future(key).get(REPORT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof PerfException ? (PerfException) e.getCause()
                    : new PerfException(e.getCause().toString(), e.getCause());
        } catch (TimeoutException e) {
            throw new PerfException("the " + role + " peer process reported no " + key + " within " + REPORT_TIMEOUT.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PerfException("interrupted while waiting for the peer process", e);
        }
    }

    /** The peer's process id. */
    public long pid() {
        return process.pid();
    }

    /** Sends the peer process a signal by name ({@code STOP}, {@code CONT}) with {@code kill -<name>}. */
    public void signal(String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new PerfException("kill -" + name + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new PerfException("cannot run kill -" + name + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PerfException("interrupted while signalling the peer", e);
        }
    }

    /** Kills the peer process at once (SIGKILL: no shutdown hook, no cleanup) and waits for it to be gone. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ChildProcesses.remove(process);
    }

    /** Tells a peer started with {@code --standby true} to start serving (it then reports READY). */
    public void requestStart() {
        send(PeerCommands.line(PeerCommands.START));
    }

    /** Tells the peer to stop its server end (which then reports and exits), without closing its standard input. */
    public void requestStop() {
        send(PeerCommands.line(PeerCommands.STOP));
    }

    /** Writes one command line ({@link PeerCommands}) to the peer's standard input. */
    private void send(byte[] command) {
        try {
            stdin.write(command);
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("the peer process is gone", e);
        }
    }

    /** Closes the peer's standard input (its signal to exit), waits up to 5 s, then kills it. */
    @Override
    public void close() {
        try {
            stdin.close();
        } catch (IOException e) {
            // already gone
        }
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                Log.info("the " + role + " peer process " + process.pid() + " did not exit; killing it");
                process.destroy();
                if (!process.waitFor(2, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(2, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        } finally {
            ChildProcesses.remove(process);
        }
    }
}
