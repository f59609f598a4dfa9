package io.reactorrdma.engine;

import java.time.Duration;

/**
 * Every tunable of the engine, declared once with its default and why (brpc style). Immutable;
 * each {@code with…} returns a copy.
 */
public final class EngineConfig {

    /** Send-queue depth = work-request chain length. Shallow is enough to fill the link (paper §5.4.1: 32). */
    public static final int DEFAULT_SEND_QUEUE_DEPTH = 32;
    /** Receive-queue depth d = initial credits given to the peer; replenished k = d/2 at a time. */
    public static final int DEFAULT_RECV_QUEUE_DEPTH = 64;
    /**
     * The payload size of the receive buffers an engine posts when it accepted its connection (a
     * server's engines): the largest message its peer sends it in one SEND; larger ones go by
     * rendezvous. Advertised at connect. Cost: {@link #DEFAULT_RECV_QUEUE_DEPTH} buffers of it per engine
     * (64 x 8 KiB = 512 KiB of registered memory).
     */
    public static final int DEFAULT_EAGER_SIZE = 8 * 1024;
    /**
     * The same for engines that connected (clients): a client that fans requests out to servers gets
     * their replies up to this size in one SEND, with no rendezvous round trip, while servers keep
     * small buffers. Cost: {@link #DEFAULT_RECV_QUEUE_DEPTH} buffers of it per engine, 64 x 64 KiB =
     * 4 MiB of registered memory per server a client talks to (per thread domain); lower it for a
     * client of many servers whose replies are small.
     */
    public static final int DEFAULT_CLIENT_EAGER_SIZE = 64 * 1024;
    /** Rendezvous WRITE fragment size S: the scheduler's unit of interleaving (DESIGN §4: 64 KiB). */
    public static final int DEFAULT_FRAGMENT_SIZE = 64 * 1024;
    /** Per-engine bound on bytes posted and not completed (the incast send window, paper §6.3). */
    public static final long DEFAULT_SEND_WINDOW_BYTES = 4L * 1024 * 1024;
    /** Largest message; larger sends fail with a clear error and the connection survives. */
    public static final int DEFAULT_MAX_MESSAGE_SIZE = 16 * 1024 * 1024;
    /** Messages a socket may have in flight to a peer socket whose subscriber has not asked for them. */
    public static final int DEFAULT_SOCKET_MESSAGE_WINDOW = 32;
    /** An idle engine sends a heartbeat this often, so a silent dead peer is found. */
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(1);
    /**
     * How long a failed engine waits for its queue pair's flush completions before it destroys the
     * queue pair and releases its buffers anyway, with a warning (docs/PROTOCOL.md, "Teardown").
     * Generous: flushes normally come within microseconds, a dead peer within the provider's
     * peer timeout (soft: 4 s).
     */
    public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(10);
    /**
     * Bytes of rendezvous destinations one engine holds for its peer at once (answered, data not yet
     * complete). Requests beyond it wait, in arrival order, until destinations are freed; one request
     * larger than the whole bound is answered when nothing else is held. Bounds what a peer that asks
     * and never writes can pin (docs/PROTOCOL.md, "Abandoned, bounded and revoked destinations").
     */
    public static final long DEFAULT_MAX_PINNED_DESTINATION_BYTES = 64L * 1024 * 1024;
    /**
     * How long an answered destination waits for its message's last WRITE before the receiver
     * revokes it (RNDV_REVOKE); a peer that has not given the token up (RNDV_ABANDON) one more such
     * period later is failed. Long enough for the largest message on a loaded link.
     */
    public static final Duration DEFAULT_RENDEZVOUS_WRITE_TIMEOUT = Duration.ofSeconds(30);
    /**
     * Whether this side offers pull rendezvous: a large message whose payload lives in memory the
     * peer may read ({@code EngineSocket.allocateRemoteReadable}, the connection's allocator when
     * pull is on) is named to the peer in one request, and the peer READs it into its own memory
     * (no destination round trip, the sender's thread is not woken to move it). Used on a
     * connection only when both sides offer it (agreed at connect); other payloads, and every
     * payload when off, go by WRITE rendezvous. Off by default: the WRITE rendezvous stays the
     * default until pull has been measured on hardware.
     */
    public static final boolean DEFAULT_PULL_RENDEZVOUS = false;
    /**
     * Bytes of RDMA READs one thread domain keeps outstanding for all its engines together: a
     * client pulling replies from many servers at once is bounded as a whole (each engine's
     * pulls are also bounded by its send window, and by 4 READs per queue pair).
     */
    public static final long DEFAULT_PULL_BUDGET_BYTES = 16L * 1024 * 1024;

    private final int sendQueueDepth;
    private final int recvQueueDepth;
    private final int eagerSize;
    private final int clientEagerSize;
    private final int fragmentSize;
    private final long sendWindowBytes;
    private final int maxMessageSize;
    private final int socketMessageWindow;
    private final Duration heartbeatInterval;
    private final Duration drainTimeout;
    private final long maxPinnedDestinationBytes;
    private final Duration rendezvousWriteTimeout;
    private final boolean pullRendezvous;
    private final long pullBudgetBytes;

    private EngineConfig(int sendQueueDepth, int recvQueueDepth, int eagerSize, int clientEagerSize, int fragmentSize, long sendWindowBytes,
                         int maxMessageSize, int socketMessageWindow, Duration heartbeatInterval, Duration drainTimeout,
                         long maxPinnedDestinationBytes, Duration rendezvousWriteTimeout, boolean pullRendezvous, long pullBudgetBytes) {
        this.sendQueueDepth = sendQueueDepth;
        this.recvQueueDepth = recvQueueDepth;
        this.eagerSize = eagerSize;
        this.clientEagerSize = clientEagerSize;
        this.fragmentSize = fragmentSize;
        this.sendWindowBytes = sendWindowBytes;
        this.maxMessageSize = maxMessageSize;
        this.socketMessageWindow = socketMessageWindow;
        this.heartbeatInterval = heartbeatInterval;
        this.drainTimeout = drainTimeout;
        this.maxPinnedDestinationBytes = maxPinnedDestinationBytes;
        this.rendezvousWriteTimeout = rendezvousWriteTimeout;
        this.pullRendezvous = pullRendezvous;
        this.pullBudgetBytes = pullBudgetBytes;
    }

    public static EngineConfig defaults() {
        return new EngineConfig(DEFAULT_SEND_QUEUE_DEPTH, DEFAULT_RECV_QUEUE_DEPTH, DEFAULT_EAGER_SIZE, DEFAULT_CLIENT_EAGER_SIZE, DEFAULT_FRAGMENT_SIZE,
                DEFAULT_SEND_WINDOW_BYTES, DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_SOCKET_MESSAGE_WINDOW, DEFAULT_HEARTBEAT_INTERVAL,
                DEFAULT_DRAIN_TIMEOUT, DEFAULT_MAX_PINNED_DESTINATION_BYTES, DEFAULT_RENDEZVOUS_WRITE_TIMEOUT, DEFAULT_PULL_RENDEZVOUS, DEFAULT_PULL_BUDGET_BYTES);
    }

    public EngineConfig withSendQueueDepth(int v) {
        return new EngineConfig(atLeast("sendQueueDepth", v, 4), recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes, maxMessageSize, socketMessageWindow, heartbeatInterval, drainTimeout, maxPinnedDestinationBytes, rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes);
    }

    public EngineConfig withRecvQueueDepth(int v) {
        return new EngineConfig(sendQueueDepth, atLeast("recvQueueDepth", v, 4), eagerSize, clientEagerSize, fragmentSize, sendWindowBytes, maxMessageSize, socketMessageWindow, heartbeatInterval, drainTimeout, maxPinnedDestinationBytes, rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes);
    }

    /** See {@link #DEFAULT_EAGER_SIZE}; at least 64 bytes. */
    public EngineConfig withEagerSize(int v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, atLeast("eagerSize", v, 64), clientEagerSize, fragmentSize, sendWindowBytes, maxMessageSize, socketMessageWindow, heartbeatInterval, drainTimeout, maxPinnedDestinationBytes, rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes);
    }

    /** See {@link #DEFAULT_CLIENT_EAGER_SIZE}; at least 64 bytes. */
    public EngineConfig withClientEagerSize(int v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, atLeast("clientEagerSize", v, 64), fragmentSize, sendWindowBytes, maxMessageSize, socketMessageWindow, heartbeatInterval, drainTimeout, maxPinnedDestinationBytes, rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes);
    }

    public EngineConfig withFragmentSize(int v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, atLeast("fragmentSize", v, 4096), sendWindowBytes, maxMessageSize, socketMessageWindow, heartbeatInterval, drainTimeout, maxPinnedDestinationBytes, rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes);
    }

    public EngineConfig withSendWindowBytes(long v) {
        if (v < 1) throw new IllegalArgumentException("sendWindowBytes must be at least 1, got " + v);
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, v, maxMessageSize, socketMessageWindow, heartbeatInterval, drainTimeout, maxPinnedDestinationBytes, rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes);
    }

    public EngineConfig withMaxMessageSize(int v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes, atLeast("maxMessageSize", v, 1), socketMessageWindow, heartbeatInterval, drainTimeout, maxPinnedDestinationBytes, rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes);
    }

    public EngineConfig withSocketMessageWindow(int v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes, maxMessageSize, atLeast("socketMessageWindow", v, 1), heartbeatInterval, drainTimeout, maxPinnedDestinationBytes, rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes);
    }

    public EngineConfig withHeartbeatInterval(Duration v) {
        if (v.toMillis() < 10) throw new IllegalArgumentException("heartbeatInterval must be at least 10 ms, got " + v.toMillis() + " ms");
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes, maxMessageSize, socketMessageWindow, v, drainTimeout, maxPinnedDestinationBytes, rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes);
    }

    private static int atLeast(String name, int v, int min) {
        if (v < min) throw new IllegalArgumentException(name + " must be at least " + min + ", got " + v);
        return v;
    }

    /** See {@link #DEFAULT_DRAIN_TIMEOUT}; at least 10 ms. */
    public EngineConfig withDrainTimeout(Duration v) {
        if (v.toMillis() < 10) throw new IllegalArgumentException("drainTimeout must be at least 10 ms, got " + v.toMillis() + " ms");
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes, maxMessageSize, socketMessageWindow, heartbeatInterval, v, maxPinnedDestinationBytes, rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes);
    }

    /** See {@link #DEFAULT_MAX_PINNED_DESTINATION_BYTES}. */
    public EngineConfig withMaxPinnedDestinationBytes(long v) {
        if (v < 1) throw new IllegalArgumentException("maxPinnedDestinationBytes must be at least 1, got " + v);
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes, maxMessageSize, socketMessageWindow,
                heartbeatInterval, drainTimeout, v, rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes);
    }

    /** See {@link #DEFAULT_RENDEZVOUS_WRITE_TIMEOUT}; at least 10 ms. */
    public EngineConfig withRendezvousWriteTimeout(Duration v) {
        if (v.toMillis() < 10) throw new IllegalArgumentException("rendezvousWriteTimeout must be at least 10 ms, got " + v.toMillis() + " ms");
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes, maxMessageSize, socketMessageWindow,
                heartbeatInterval, drainTimeout, maxPinnedDestinationBytes, v, pullRendezvous, pullBudgetBytes);
    }

    /** See {@link #DEFAULT_PULL_RENDEZVOUS}. */
    public EngineConfig withPullRendezvous(boolean v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes, maxMessageSize, socketMessageWindow,
                heartbeatInterval, drainTimeout, maxPinnedDestinationBytes, rendezvousWriteTimeout, v, pullBudgetBytes);
    }

    /** See {@link #DEFAULT_PULL_BUDGET_BYTES}; at least one fragment. */
    public EngineConfig withPullBudgetBytes(long v) {
        if (v < fragmentSize) throw new IllegalArgumentException("pullBudgetBytes must be at least the fragment size (" + fragmentSize + "), got " + v);
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes, maxMessageSize, socketMessageWindow,
                heartbeatInterval, drainTimeout, maxPinnedDestinationBytes, rendezvousWriteTimeout, pullRendezvous, v);
    }

    public int sendQueueDepth() { return sendQueueDepth; }
    public int recvQueueDepth() { return recvQueueDepth; }
    public int eagerSize() { return eagerSize; }
    public int clientEagerSize() { return clientEagerSize; }
    public int fragmentSize() { return fragmentSize; }
    public long sendWindowBytes() { return sendWindowBytes; }
    public int maxMessageSize() { return maxMessageSize; }
    public int socketMessageWindow() { return socketMessageWindow; }
    public Duration heartbeatInterval() { return heartbeatInterval; }
    public Duration drainTimeout() { return drainTimeout; }
    public long maxPinnedDestinationBytes() { return maxPinnedDestinationBytes; }
    public Duration rendezvousWriteTimeout() { return rendezvousWriteTimeout; }
    public boolean pullRendezvous() { return pullRendezvous; }
    public long pullBudgetBytes() { return pullBudgetBytes; }

    /** The eager size an engine advertises and posts receive buffers for: the client's or the server's. */
    int eagerSize(boolean client) {
        return client ? clientEagerSize : eagerSize;
    }

    /** Receive buffer size of a client's or a server's engine: a header plus its eager payload. */
    int recvBufferSize(boolean client) {
        return WireHeader.SIZE + eagerSize(client);
    }

    /**
     * The largest message an engine SENDs eagerly when the peer's buffers take it: its own eager
     * size or one fragment, whichever is larger. Beyond a fragment a message goes by rendezvous, so
     * one SEND never holds the chain longer than a fragment does unless the sender took such
     * messages itself.
     */
    int eagerSendLimit(boolean client) {
        return Math.max(eagerSize(client), fragmentSize);
    }

    @Override
    public String toString() {
        return "EngineConfig{sendQueueDepth=" + sendQueueDepth + ", recvQueueDepth=" + recvQueueDepth + ", eagerSize=" + eagerSize + ", clientEagerSize=" + clientEagerSize
                + ", fragmentSize=" + fragmentSize + ", sendWindowBytes=" + sendWindowBytes + ", maxMessageSize=" + maxMessageSize
                + ", socketMessageWindow=" + socketMessageWindow + ", heartbeatInterval=" + heartbeatInterval.toMillis() + "ms"
                + ", drainTimeout=" + drainTimeout.toMillis() + "ms, maxPinnedDestinationBytes=" + maxPinnedDestinationBytes
                + ", rendezvousWriteTimeout=" + rendezvousWriteTimeout.toMillis() + "ms, pullRendezvous=" + pullRendezvous
                + ", pullBudgetBytes=" + pullBudgetBytes + "}";
    }
}
