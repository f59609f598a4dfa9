package io.reactorrdma.verbs.soft.fault;

import io.reactorrdma.verbs.work.WrOpcode;

import java.time.Duration;
import java.util.Objects;

/**
 * A test's switch that freezes the posters of the context it is configured on
 * ({@link SoftFaults#withPeerFreeze}): once {@link #freezeBefore armed}, the next requests of that
 * opcode stop after every check (the peer's state among them) and just before their data is copied
 * into the peer's memory — a peer stalled mid-DMA — until {@link #thaw()}. Thread-safe.
 */
public final class PeerFreeze {

    private volatile WrOpcode armed;
    private int frozen;
    private long thawed;
    private long generation;

    /** Freezes every later request with opcode {@code op} (the poster thread waits) until {@link #thaw()}. */
    public synchronized void freezeBefore(WrOpcode op) {
        armed = Objects.requireNonNull(op, "op");
    }

    /** Lets every frozen poster go on, and disarms. */
    public synchronized void thaw() {
        armed = null;
        generation++;
        notifyAll();
    }

    /** Waits until at least one poster is frozen; false on timeout. */
    public synchronized boolean awaitFrozen(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (frozen == 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }

    /** Waits until the posters frozen so far have finished the request they were frozen in; false on timeout. */
    public synchronized boolean awaitThawed(long count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (thawed < count) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }

    /** Whether a request of {@code op} would stop at {@link #checkpoint} now (one volatile read). */
    public boolean armedFor(WrOpcode op) {
        return armed == op;
    }

    /**
     * Poster: stops here while armed for {@code op}; true when it was frozen (it then calls
     * {@link #finished()} once the request is done). The fast path is one volatile read.
     */
    public boolean checkpoint(WrOpcode op) {
        if (armed != op) {
            return false;
        }
        synchronized (this) {
            long g = generation;
            if (armed != op) {
                return false;
            }
            frozen++;
            notifyAll();
            boolean interrupted = false;
            while (generation == g) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            frozen--;
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return true;
        }
    }

    /** Poster: the request it was frozen in is done (copied and completed). */
    public synchronized void finished() {
        thawed++;
        notifyAll();
    }

    @Override
    public synchronized String toString() {
        return "PeerFreeze{armed=" + armed + ", frozen=" + frozen + "}";
    }
}
