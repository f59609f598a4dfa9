package io.reactorrdma.rsocket.boot;

/** The RDMA or TCP port the RSocket server was told to bind is taken; {@link RdmaPortInUseFailureAnalyzer} explains it at startup. */
public class RdmaPortInUseException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String transport;
    private final int port;

    /** {@code transport} is {@code RDMA} or {@code TCP}. */
    public RdmaPortInUseException(String transport, int port, Throwable cause) {
        super(transport + " port " + port + " is already in use: " + cause.getMessage(), cause);
        this.transport = transport;
        this.port = port;
    }

    /** {@code RDMA} or {@code TCP}. */
    public String getTransport() {
        return transport;
    }

    /** The port asked for. */
    public int getPort() {
        return port;
    }
}
