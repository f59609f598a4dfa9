package io.reactorrdma.perf.rsocket;

import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.measure.EchoLoops;

import java.util.concurrent.CompletableFuture;

/** What the RSocket loops share: starting on a thread of their own, and turning a failure into the loop's end. */
final class RSocketLoopSupport {

    private RSocketLoopSupport() {
    }

    /**
     * Runs {@code first} on a new daemon thread. Over RSocket's Local transport the answers can come
     * back on the thread that asked, so that thread may go on to drive the whole loop: it must not be
     * the one that times the run.
     */
    static void startOnOwnThread(String name, Runnable first) {
        Thread t = new Thread(first, name);
        t.setDaemon(true);
        t.start();
    }

    /** Ends {@code done} with {@code error} (wrapped to say which connection), and tells {@code loops} once. */
    static void fail(CompletableFuture<Void> done, EchoLoops loops, int id, Throwable error) {
        if (done.completeExceptionally(error instanceof PerfException ? error
                : new PerfException("connection " + id + " failed during the run: " + error, error))) {
            loops.failed(done);
        }
    }
}
