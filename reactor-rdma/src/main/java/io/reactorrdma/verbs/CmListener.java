package io.reactorrdma.verbs;

import java.net.InetSocketAddress;
import java.time.Duration;

/** A listening connection-manager id ({@code rdma_listen} on a bound {@code rdma_cm_id}). */
public interface CmListener extends AutoCloseable {

    /** The bound address; the port is the real one when 0 was asked for. */
    InetSocketAddress localAddress();

    /**
     * Waits for the next connection request ({@code RDMA_CM_EVENT_CONNECT_REQUEST}).
     *
     * @return the request, or null if none came within the timeout
     */
    ConnectionRequest poll(Duration timeout) throws InterruptedException;

    /** Stops listening ({@code rdma_destroy_id}); pending requests are rejected. Idempotent. */
    @Override
    void close();
}
