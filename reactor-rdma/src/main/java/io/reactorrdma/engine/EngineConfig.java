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
    /** Messages up to this size go eagerly in one SEND into a posted buffer (DESIGN §4: 8 KiB). */
    public static final int DEFAULT_EAGER_SIZE = 8 * 1024;
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

    private final int sendQueueDepth;
    private final int recvQueueDepth;
    private final int eagerSize;
    private final int fragmentSize;
    private final long sendWindowBytes;
    private final int maxMessageSize;
    private final int socketMessageWindow;
    private final Duration heartbeatInterval;
    private final Duration drainTimeout;

    private EngineConfig(int sendQueueDepth, int recvQueueDepth, int eagerSize, int fragmentSize, long sendWindowBytes,
                         int maxMessageSize, int socketMessageWindow, Duration heartbeatInterval, Duration drainTimeout) {
        this.sendQueueDepth = sendQueueDepth;
        this.recvQueueDepth = recvQueueDepth;
        this.eagerSize = eagerSize;
        this.fragmentSize = fragmentSize;
        this.sendWindowBytes = sendWindowBytes;
        this.maxMessageSize = maxMessageSize;
        this.socketMessageWindow = socketMessageWindow;
        this.heartbeatInterval = heartbeatInterval;
        this.drainTimeout = drainTimeout;
    }

    public static EngineConfig defaults() {
        return new EngineConfig(DEFAULT_SEND_QUEUE_DEPTH, DEFAULT_RECV_QUEUE_DEPTH, DEFAULT_EAGER_SIZE, DEFAULT_FRAGMENT_SIZE,
                DEFAULT_SEND_WINDOW_BYTES, DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_SOCKET_MESSAGE_WINDOW, DEFAULT_HEARTBEAT_INTERVAL,
                DEFAULT_DRAIN_TIMEOUT);
    }

    public EngineConfig withSendQueueDepth(int v) {
        return new EngineConfig(atLeast("sendQueueDepth", v, 4), recvQueueDepth, eagerSize, fragmentSize, sendWindowBytes, maxMessageSize, socketMessageWindow, heartbeatInterval, drainTimeout);
    }

    public EngineConfig withRecvQueueDepth(int v) {
        return new EngineConfig(sendQueueDepth, atLeast("recvQueueDepth", v, 4), eagerSize, fragmentSize, sendWindowBytes, maxMessageSize, socketMessageWindow, heartbeatInterval, drainTimeout);
    }

    public EngineConfig withEagerSize(int v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, atLeast("eagerSize", v, 64), fragmentSize, sendWindowBytes, maxMessageSize, socketMessageWindow, heartbeatInterval, drainTimeout);
    }

    public EngineConfig withFragmentSize(int v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, atLeast("fragmentSize", v, 4096), sendWindowBytes, maxMessageSize, socketMessageWindow, heartbeatInterval, drainTimeout);
    }

    public EngineConfig withSendWindowBytes(long v) {
        if (v < 1) throw new IllegalArgumentException("sendWindowBytes must be at least 1, got " + v);
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, fragmentSize, v, maxMessageSize, socketMessageWindow, heartbeatInterval, drainTimeout);
    }

    public EngineConfig withMaxMessageSize(int v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, fragmentSize, sendWindowBytes, atLeast("maxMessageSize", v, 1), socketMessageWindow, heartbeatInterval, drainTimeout);
    }

    public EngineConfig withSocketMessageWindow(int v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, fragmentSize, sendWindowBytes, maxMessageSize, atLeast("socketMessageWindow", v, 1), heartbeatInterval, drainTimeout);
    }

    public EngineConfig withHeartbeatInterval(Duration v) {
        if (v.toMillis() < 10) throw new IllegalArgumentException("heartbeatInterval must be at least 10 ms, got " + v.toMillis() + " ms");
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, fragmentSize, sendWindowBytes, maxMessageSize, socketMessageWindow, v, drainTimeout);
    }

    private static int atLeast(String name, int v, int min) {
        if (v < min) throw new IllegalArgumentException(name + " must be at least " + min + ", got " + v);
        return v;
    }

    /** See {@link #DEFAULT_DRAIN_TIMEOUT}; at least 10 ms. */
    public EngineConfig withDrainTimeout(Duration v) {
        if (v.toMillis() < 10) throw new IllegalArgumentException("drainTimeout must be at least 10 ms, got " + v.toMillis() + " ms");
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, fragmentSize, sendWindowBytes, maxMessageSize, socketMessageWindow, heartbeatInterval, v);
    }

    public int sendQueueDepth() { return sendQueueDepth; }
    public int recvQueueDepth() { return recvQueueDepth; }
    public int eagerSize() { return eagerSize; }
    public int fragmentSize() { return fragmentSize; }
    public long sendWindowBytes() { return sendWindowBytes; }
    public int maxMessageSize() { return maxMessageSize; }
    public int socketMessageWindow() { return socketMessageWindow; }
    public Duration heartbeatInterval() { return heartbeatInterval; }
    public Duration drainTimeout() { return drainTimeout; }

    /** Receive buffer size: a header plus an eager payload. */
    int recvBufferSize() {
        return WireHeader.SIZE + eagerSize;
    }

    @Override
    public String toString() {
        return "EngineConfig{sendQueueDepth=" + sendQueueDepth + ", recvQueueDepth=" + recvQueueDepth + ", eagerSize=" + eagerSize
                + ", fragmentSize=" + fragmentSize + ", sendWindowBytes=" + sendWindowBytes + ", maxMessageSize=" + maxMessageSize
                + ", socketMessageWindow=" + socketMessageWindow + ", heartbeatInterval=" + heartbeatInterval.toMillis() + "ms"
                + ", drainTimeout=" + drainTimeout.toMillis() + "ms}";
    }
}
