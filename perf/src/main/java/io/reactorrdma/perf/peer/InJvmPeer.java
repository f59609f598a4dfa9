package io.reactorrdma.perf.peer;

import io.reactorrdma.perf.cli.Log;
import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.measure.CpuMeter;
import io.reactorrdma.perf.measure.PeerSide;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A peer on a thread of this JVM; its CPU account is that thread's CPU time. */
public final class InJvmPeer implements PeerSide {

    private final Map<String, CompletableFuture<String>> reports = new ConcurrentHashMap<>();
    private final Thread thread;
    private final CpuMeter cpu;
    private final long[] marks = {-1, -1};
    private int markCount;
    private volatile boolean stop;
    private volatile Throwable failure;
    private int port;

    private InJvmPeer(String name, ServerTask task) {
        thread = new Thread(() -> run(task), name);
        thread.setDaemon(true);
        cpu = CpuMeter.thread(thread.getId());
    }

    /** Starts {@code task} on its own thread and waits until it listens. */
    public static InJvmPeer start(String name, ServerTask task) {
        InJvmPeer peer = new InJvmPeer(name, task);
        peer.thread.start();
        try {
            peer.port = Integer.parseInt(peer.awaitReport(PeerReporter.READY));
        } catch (RuntimeException e) {
            peer.close();
            throw e;
        }
        return peer;
    }

    private void run(ServerTask task) {
        try {
            task.serve(this::report, () -> stop);
        } catch (Throwable t) {
            failure = t;
            reports.values().forEach(f -> f.completeExceptionally(t));
            if (!stop) {
                Log.info("server thread " + thread.getName() + " failed: " + t);
            }
        }
    }

    private void report(String key, String value) {
        future(key).complete(value);
    }

    private CompletableFuture<String> future(String key) {
        CompletableFuture<String> f = reports.computeIfAbsent(key, k -> new CompletableFuture<>());
        Throwable t = failure;
        if (t != null) {
            f.completeExceptionally(t);
        }
        return f;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public void markCpu() {
        if (markCount < marks.length) {
            marks[markCount++] = cpu.nanos();
        }
    }

    @Override
    public long cpuNanosBetweenMarks() {
        return CpuMeter.delta(marks[0], marks[1]);
    }

    @Override
    public String awaitReport(String key) {
        try {
            return future(key).get(REPORT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new PerfException("the server thread failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new PerfException("the server thread reported no " + key + " within " + REPORT_TIMEOUT.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PerfException("interrupted while waiting for the server thread", e);
        }
    }

    @Override
    public void close() {
        stop = true;
        try {
            thread.join(5000);
            if (thread.isAlive()) {
                thread.interrupt();
                thread.join(2000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            Log.info("server thread " + thread.getName() + " did not end; leaving it (daemon)");
        }
    }
}
