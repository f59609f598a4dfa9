package io.reactorrdma.verbs;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * An established connection ({@code rdma_cm_id} after {@code RDMA_CM_EVENT_ESTABLISHED}) and its
 * queue pair.
 */
public interface CmConnection extends AutoCloseable {

    QueuePair qp();

    InetSocketAddress localAddress();

    InetSocketAddress remoteAddress();

    /** The private data the peer sent with its accept (client side) or connect (server side). */
    ByteBuffer remotePrivateData();

    /**
     * Completes with the reason when the connection ends ({@code RDMA_CM_EVENT_DISCONNECTED}):
     * either side disconnected, or the peer died. The queue pair is then in {@link QpState#ERROR}.
     */
    CompletableFuture<String> onDisconnect();

    /** Whether the connection is still up. */
    boolean isConnected();

    /**
     * Disconnects ({@code rdma_disconnect}): both queue pairs move to {@link QpState#ERROR}, and
     * outstanding requests on both sides are flushed. Idempotent.
     */
    void disconnect();

    /** Disconnects; the queue pair stays until it is closed itself. */
    @Override
    void close();
}
