package io.reactorrdma.perf.peer;

import io.reactorrdma.perf.measure.CpuMeter;
import io.reactorrdma.perf.measure.EngineMeters;

/**
 * A server end running in this JVM (echo's {@code RdmaEchoServer}, the RSocket scenarios' {@code RSocketServerEnd}), as
 * {@code InJvmEchoPeer} accounts for it.
 */
public interface InJvmServer extends AutoCloseable {

    /** The port it listens on (0 where it has none). */
    int port();

    /** What its engine counted so far ({@link EngineMeters#NONE} without an RDMA engine). */
    EngineMeters meters();

    /** The CPU of the threads that serve (reads -1 where it has none of its own). */
    CpuMeter threadsCpu();

    /** Stops it and checks that it released every buffer. */
    @Override
    void close();
}
