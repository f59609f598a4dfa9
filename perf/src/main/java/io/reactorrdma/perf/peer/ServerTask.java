package io.reactorrdma.perf.peer;

import java.util.function.BooleanSupplier;

/** The server end of a benchmark, run by a forked {@code PeerMain} or by an {@link InJvmPeer} thread. */
@FunctionalInterface
public interface ServerTask {

    /**
     * Serves one client: reports {@link PeerReporter#READY} once it listens, returns when the client
     * is done or gone, or soon after {@code stop} turns true.
     */
    void serve(PeerReporter reporter, BooleanSupplier stop) throws Exception;
}
