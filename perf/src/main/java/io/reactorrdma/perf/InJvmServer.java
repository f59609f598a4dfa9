package io.reactorrdma.perf;

/** A server end running in this JVM (echo's {@link RdmaEchoServer}, the RSocket scenarios' {@link RSocketServerEnd}), as {@link InJvmEchoPeer} accounts for it. */
interface InJvmServer extends AutoCloseable {

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
