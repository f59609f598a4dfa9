package io.reactorrdma.perf.peer;

import io.reactorrdma.perf.measure.EngineMeters;

/**
 * How the server end tells the client end what it knows: {@link #READY} with its port once it
 * listens, {@link #VERIFY} with the CRC32 of what it received, {@link #CPU} and {@link #METERS}
 * at marks. A forked peer prints {@code KEY value} lines on its standard output; a thread peer
 * hands them over directly.
 */
@FunctionalInterface
public interface PeerReporter {

    /** Listening; the value is the port. */
    String READY = "READY";
    /** The peer's process CPU nanoseconds at a mark (forked peers only). */
    String CPU = "CPU";
    /** The peer's {@code rdma.*} meters at a mark, as {@link EngineMeters} text (echo over RDMA only). */
    String METERS = "METERS";
    /** CRC32 (hex) of the peer's region after the client's last WRITE. */
    String VERIFY = "VERIFY";
    /** The ports of a peer that serves several servers (fanout's shard replicas), comma-separated, in order. */
    String PORTS = "PORTS";
    /** The soak server's account at its end ({@code SoakServer}): {@code name=value} pairs. */
    String SOAK = "SOAK";

    void report(String key, String value);
}
