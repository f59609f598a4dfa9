package io.reactorrdma.perf.measure;

import org.HdrHistogram.Histogram;

import java.util.concurrent.CompletableFuture;

/**
 * One connection's closed loop as {@link EchoLoops} drives it through its phases: started once,
 * then answering on the transport's thread until the phase is {@link EchoLoops.Phase#STOP}.
 * Implemented by {@link EchoLoop}, {@code RequestResponseLoop} and {@code StreamLoop}.
 */
public interface MeasuredLoop {

    /** Sends the first message (or request). */
    void start();

    /** Completes at the first good answer. */
    CompletableFuture<Void> firstEcho();

    /** Completes when the loop has ended after the stop, exceptionally when it failed. */
    CompletableFuture<Void> done();

    /** Round trips recorded in the measured phase (empty where the loop records none). */
    Histogram histogram();

    /** Operations completed in the measured phase. */
    long measured();

    /**
     * Completes a loop's {@link #firstEcho()} future at its first good answer and is a read after that: complete() on
     * a completed future is still a compare-and-set, which every answer paid on the measured thread.
     */
    static void firstAnswerSeen(CompletableFuture<Void> first) {
        if (!first.isDone()) {
            first.complete(null);
        }
    }
}
