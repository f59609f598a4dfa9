package io.reactorrdma.perf.measure;

import java.time.Duration;

/** The server end of a benchmark as the client sees it: a forked process or a thread of this JVM. */
public interface PeerSide extends AutoCloseable {

    /** How long the client waits for the peer to start listening or to report. */
    Duration REPORT_TIMEOUT = Duration.ofSeconds(30);

    /** The host the peer listens on. */
    default String host() {
        return "127.0.0.1";
    }

    /** The port the peer listens on (known once started). */
    int port();

    /** Marks the start, then the end, of the measured phase in the peer's CPU account. Cheap; does not wait. */
    void markCpu();

    /** The peer's CPU nanoseconds between the two marks, waiting for the figures if need be; -1 if unknown. */
    long cpuNanosBetweenMarks();

    /**
     * What the peer's RDMA engine counted between the two marks ({@code rdma.*} meters), waiting
     * for the figures if need be; {@link EngineMeters#NONE} for a peer without an engine.
     */
    default EngineMeters metersBetweenMarks() {
        return EngineMeters.NONE;
    }

    /** Waits for the value the peer reports under {@code key}. */
    String awaitReport(String key);

    /** Stops the peer (it should already be finishing, its client gone) and waits, boundedly, for it to end. */
    @Override
    void close();
}
