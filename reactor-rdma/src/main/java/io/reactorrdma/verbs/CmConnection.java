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
     * Whether the connection ended because the provider found the peer lost — dead or silent past
     * its peer timeout (a killed or stopped process) — rather than disconnected by either side.
     * Meaningful once {@link #onDisconnect()} completed; false by default, for providers that cannot
     * tell (a hardware peer that is lost shows instead as a transport-error completion).
     */
    default boolean peerLost() {
        return false;
    }

    /**
     * Disconnects ({@code rdma_disconnect}): both queue pairs move to {@link QpState#ERROR}, and
     * outstanding requests on both sides are flushed. Idempotent.
     */
    void disconnect();

    /** Disconnects; the queue pair stays until it is closed itself. */
    @Override
    void close();
}
