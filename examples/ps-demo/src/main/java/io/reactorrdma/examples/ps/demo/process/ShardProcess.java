package io.reactorrdma.examples.ps.demo.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One shard replica running as a child process ({@code ShardMain}). Its standard input stays open
 * for as long as this object lives: the shard exits when it reaches EOF, so a demo that dies takes
 * its shards with it. Its standard error goes to a log file of its own; its standard output is read
 * for the {@code SHARD-READY} line and then drained.
 */
public final class ShardProcess {

    /** How long a shard may take to print SHARD-READY (a JVM start on a loaded 2-core host): 60 s. */
    public static final Duration DEFAULT_READY_TIMEOUT = Duration.ofSeconds(60);
    /** How long a shard may take to exit after its stdin closed, before it is killed: 10 s. */
    public static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(10);

    private static final Pattern READY = Pattern.compile(
            "SHARD-READY index=(\\d+) rdma=(\\d+) tcp=(\\d+) pid=(\\d+)");

    private final int shard;
    private final int replica;
    private final Process process;
    private final Path log;
    private final CompletableFuture<int[]> ready = new CompletableFuture<>();

    private ShardProcess(int shard, int replica, Process process, Path log) {
        this.shard = shard;
        this.replica = replica;
        this.process = process;
        this.log = log;
        Thread reader = new Thread(this::readStdout, "ps-demo-shard-" + shard + "-" + replica + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code command}; returns at once (see {@link #awaitReady}). Standard error goes to {@code log}. */
    static ShardProcess start(int shard, int replica, List<String> command, Path log) {
        try {
            Process p = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            return new ShardProcess(shard, replica, p, log);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start shard " + shard + " replica " + replica + " (" + command.get(0)
                    + "): " + e.getMessage(), e);
        }
    }

    private void readStdout() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                Matcher m = READY.matcher(line);
                if (!ready.isDone() && m.find()) {
                    ready.complete(new int[] {Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))});
                }
            }
        } catch (IOException | RuntimeException e) {
            // the process ended: readiness fails below with its exit status
        }
        ready.completeExceptionally(new IllegalStateException("shard " + shard + " replica " + replica
                + " ended before it printed SHARD-READY" + exitNote()));
    }

    private String exitNote() {
        try {
            if (process.waitFor(2, TimeUnit.SECONDS)) {
                return " (exit status " + process.exitValue() + "; its log: " + log + ")";
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return " (its log: " + log + ")";
    }

    /** Waits for SHARD-READY; returns {rdmaPort, tcpPort}. */
    int[] awaitReady(Duration timeout) {
        try {
            return ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("shard " + shard + " replica " + replica + " did not print SHARD-READY within "
                    + timeout.toSeconds() + " s; its log: " + log);
        } catch (ExecutionException e) {
            throw (RuntimeException) e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for shard " + shard + " replica " + replica, e);
        }
    }

    /** SIGKILL (on POSIX): no shutdown hook, no goodbye, the way a crash looks to its peers. Waits for the end. */
    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(DEFAULT_STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Closes its stdin (the shard exits and cleans up); kills it when it has not ended within the stop timeout. */
    void stop() {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // already gone
        }
        try {
            if (!process.waitFor(DEFAULT_STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                kill();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
        }
    }

    /** CPU time the process used so far (user + system), in nanoseconds; -1 when the OS does not tell. */
    long cpuNanos() {
        return process.toHandle().info().totalCpuDuration().map(Duration::toNanos).orElse(-1L);
    }

    /** Whether the process is running. */
    boolean isAlive() {
        return process.isAlive();
    }

    /** The process, for the shutdown hook. */
    Process process() {
        return process;
    }

    /** Its operating-system process id. */
    long pid() {
        return process.pid();
    }
}
