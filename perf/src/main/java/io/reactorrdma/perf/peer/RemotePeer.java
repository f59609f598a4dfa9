package io.reactorrdma.perf.peer;

import io.reactorrdma.perf.measure.PeerSide;

/**
 * A peer on another host, started there by hand ({@code serve}) — the rdma-disni transport. Its
 * CPU time and reports (write-bw's CRC32) stay on its own console: this side measures only itself.
 */
public final class RemotePeer implements PeerSide {

    private final String host;
    private final int port;

    public RemotePeer(String host, int port) {
        this.host = host;
        this.port = port;
    }

    @Override
    public String host() {
        return host;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public void markCpu() {
        // the remote process's CPU is not visible from here
    }

    @Override
    public long cpuNanosBetweenMarks() {
        return -1;
    }

    /** Null: a remote peer prints its reports on its own console. */
    @Override
    public String awaitReport(String key) {
        return null;
    }

    @Override
    public void close() {
        // the remote peer ends by itself once its client disconnected
    }
}
