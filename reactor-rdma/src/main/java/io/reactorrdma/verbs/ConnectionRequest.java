package io.reactorrdma.verbs;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/** An incoming connection request: answer it once, with {@link #accept} or {@link #reject}. */
public interface ConnectionRequest {

    /** The private data the client sent with {@code rdma_connect} (read-only). */
    ByteBuffer privateData();

    /** Where the request came from. */
    InetSocketAddress remoteAddress();

    /**
     * Connects {@code qp} to the requester ({@code rdma_accept}) with our own private data; the
     * queue pair moves to {@link QpState#RTS}.
     */
    CmConnection accept(QueuePair qp, ByteBuffer privateData);

    /** Refuses the request ({@code rdma_reject}); the client's connect fails with {@link ConnectionRejectedException}. */
    void reject(ByteBuffer privateData);
}
