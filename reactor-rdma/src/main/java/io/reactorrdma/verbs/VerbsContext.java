package io.reactorrdma.verbs;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * An opened RDMA device ({@code struct ibv_context}) together with its connection manager
 * (librdmacm's event channel). Obtain one from {@link io.reactorrdma.verbs.provider.Providers#open(String)}.
 */
public interface VerbsContext extends AutoCloseable {

    /** The provider's name: {@code loopback}, {@code shm} or {@code disni}. */
    String providerName();

    /** The device, as {@code ibv_get_device_name} would name it. */
    String deviceName();

    ProviderCapabilities capabilities();

    /** {@code ibv_alloc_pd}. */
    ProtectionDomain allocPd();

    /**
     * {@code ibv_create_cq} with a completion channel. {@code capacity} must cover the send- and
     * receive-queue depths of every queue pair that will use the queue: every slot may hold a
     * completion, and an RNIC whose queue overruns fails it (IBV_EVENT_CQ_ERR) and its queue
     * pairs. Providers refuse, in {@link #createQp}, a queue pair whose depths no longer fit.
     */
    CompletionQueue createCq(int capacity);

    /**
     * {@code ibv_create_qp} (RC). The queue pair starts in {@link QpState#INIT}: receives may be
     * posted before it is connected.
     */
    QueuePair createQp(ProtectionDomain pd, QpAttributes attributes);

    /** {@code rdma_bind_addr} + {@code rdma_listen}; port 0 picks a free port. */
    CmListener listen(InetSocketAddress address, int backlog);

    /**
     * Connects {@code qp} to a listener ({@code rdma_resolve_addr}, {@code rdma_resolve_route},
     * {@code rdma_connect}) with {@code privateData}; blocks until established, rejected or timed out.
     *
     * @throws ConnectionRejectedException when the peer rejects
     * @throws VerbsException              when nobody listens there or the timeout passes
     */
    CmConnection connect(InetSocketAddress address, QueuePair qp, ByteBuffer privateData, Duration timeout);

    /** Closes everything the context created and releases the device. Idempotent. */
    @Override
    void close();
}
