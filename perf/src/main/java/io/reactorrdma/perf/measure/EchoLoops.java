package io.reactorrdma.perf.measure;

import io.reactorrdma.perf.cli.PerfException;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The closed loops of one run, one per connection (echo's loops, RSocket loops for
 * rsocket-rr and rsocket-stream), and the phase they are in: warm-up (answers not recorded),
 * measure (recorded), stop (each loop ends at its next answer).
 */
public final class EchoLoops {

    public enum Phase { WARMUP, MEASURE, STOP }

    private final List<MeasuredLoop> loops = new ArrayList<>();
    private final CompletableFuture<Void> firstFailure = new CompletableFuture<>();
    private volatile Phase phase = Phase.WARMUP;

    /** The number the next loop added gets (its connection number). */
    public int nextId() {
        return loops.size();
    }

    /** Adds a loop made for these phases (numbered {@link #nextId()}). */
    public <L extends MeasuredLoop> L add(L loop) {
        loops.add(loop);
        return loop;
    }

    public Phase phase() {
        return phase;
    }

    public void startAll() {
        loops.forEach(MeasuredLoop::start);
    }

    public void measure() {
        phase = Phase.MEASURE;
    }

    public void stop() {
        phase = Phase.STOP;
    }

    public void failed(CompletableFuture<Void> loopDone) {
        loopDone.whenComplete((v, e) -> firstFailure.completeExceptionally(e));
    }

    /**
     * Waits until every loop got its first echo — the connections work and both ends are past
     * their first, coldest message — or throws saying which did not.
     */
    public void awaitFirstEchoes(long timeoutMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        for (int i = 0; i < loops.size(); i++) {
            try {
                CompletableFuture.anyOf(loops.get(i).firstEcho(), loops.get(i).done())
                        .get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                throw new PerfException("connection " + i + " got no echo of its first message within " + timeoutMillis
                        + " ms; the server does not answer (see its messages above)");
            } catch (ExecutionException e) {
                throw e.getCause() instanceof PerfException ? (PerfException) e.getCause()
                        : new PerfException(e.getCause().toString(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PerfException("interrupted while waiting for the first echoes", e);
            }
        }
    }

    /** Waits {@code nanos}, or less when a loop fails first; then throws its error. */
    public void runFor(long nanos) {
        try {
            firstFailure.get(Math.max(0, nanos), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return;
        } catch (ExecutionException e) {
            throw e.getCause() instanceof PerfException ? (PerfException) e.getCause()
                    : new PerfException(e.getCause().toString(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PerfException("interrupted during the run", e);
        }
    }

    /** After {@link #stop}: waits until every loop took its last echo, or throws saying which did not. */
    public void awaitStopped(long timeoutMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        for (int i = 0; i < loops.size(); i++) {
            try {
                loops.get(i).done().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                throw new PerfException("connection " + i + " got no echo for its last message within " + timeoutMillis
                        + " ms of the end of the run; the transport lost a message or stalled");
            } catch (ExecutionException e) {
                throw e.getCause() instanceof PerfException ? (PerfException) e.getCause()
                        : new PerfException(e.getCause().toString(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PerfException("interrupted while the loops were stopping", e);
            }
        }
    }

    /** Round trips of every loop's measured phase (after {@link #awaitStopped}). */
    public Histogram latencies() {
        Histogram all = Latencies.newHistogram();
        loops.forEach(l -> all.add(l.histogram()));
        return all;
    }

    /** Echoes measured over all loops (after {@link #awaitStopped}). */
    public long measured() {
        return loops.stream().mapToLong(MeasuredLoop::measured).sum();
    }
}
