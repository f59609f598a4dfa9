package io.reactorrdma.verbs;

import java.nio.ByteBuffer;

/** The peer rejected a connection request ({@code RDMA_CM_EVENT_REJECTED}); carries its private data. */
public class ConnectionRejectedException extends VerbsException {

    private static final long serialVersionUID = 1L;
    private final transient ByteBuffer privateData;

    public ConnectionRejectedException(String message, ByteBuffer privateData) {
        super(message);
        this.privateData = privateData.asReadOnlyBuffer();
    }

    /** The private data the peer sent with {@code rdma_reject} (read-only). */
    public ByteBuffer privateData() {
        return privateData.duplicate();
    }
}
