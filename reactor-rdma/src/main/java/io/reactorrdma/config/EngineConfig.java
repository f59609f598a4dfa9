package io.reactorrdma.config;

import java.time.Duration;
import java.util.Objects;

/**
 * Every tunable of the engine, declared once with its default and why (brpc style). Immutable,
 * checked where it is made (the canonical constructor); start from {@link #defaults()}, and each
 * {@code with…} returns a copy with one value changed.
 */
public record EngineConfig(int sendQueueDepth,
                           int recvQueueDepth,
                           int eagerSize,
                           int clientEagerSize,
                           int fragmentSize,
                           long sendWindowBytes,
                           int maxMessageSize,
                           int socketMessageWindow,
                           Duration heartbeatInterval,
                           Duration drainTimeout,
                           long maxPinnedDestinationBytes,
                           Duration rendezvousWriteTimeout,
                           boolean pullRendezvous,
                           long pullBudgetBytes,
                           int pullCopyLimit) {

    /** Send-queue depth = work-request chain length. Shallow is enough to fill the link (paper §5.4.1: 32). */
    public static final int DEFAULT_SEND_QUEUE_DEPTH = 32;
    /** Receive-queue depth d = initial credits given to the peer; reposted d/8 at a time, credits returned alone once d/2 are owed. */
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
    /** Rendezvous WRITE fragment size S: the scheduler's unit of interleaving (default 64 KiB). */
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
     * peer may read (this engine's readable pool: {@code EngineSocket.allocateRemoteReadable}) is
     * named to the peer in one request, and the peer READs it into its own memory
     * (no destination round trip, the sender's thread is not woken to move it). Used on a
     * connection only when both sides offer it (agreed at connect). A payload elsewhere goes by
     * WRITE rendezvous, unless it is at most {@link #DEFAULT_PULL_COPY_LIMIT} (64 KiB by default) and is
     * then copied into readable memory first; every payload goes by WRITE rendezvous when off. On by
     * default (it costs nothing unless payloads are readable or copies are allowed).
     */
    public static final boolean DEFAULT_PULL_RENDEZVOUS = true;
    /**
     * Bytes of RDMA READs one thread domain keeps outstanding for all its engines together: a
     * client pulling replies from many servers at once is bounded as a whole (each engine's
     * pulls are also bounded by its send window, and by 4 READs per queue pair).
     */
    public static final long DEFAULT_PULL_BUDGET_BYTES = 16L * 1024 * 1024;
    /**
     * The largest payload outside the peer-readable memory that is copied into it to go by pull:
     * 64 KiB. The copy (one memcpy on the sender's I/O thread, a few microseconds at this size)
     * replaces the WRITE rendezvous's round trip: a destination request, its answer and the
     * sender's wake-up for it, and the receiver's wake for the last WRITE. Larger payloads are not
     * copied (with the soft provider the receiver's READ is a second memcpy, which large gathered
     * replies felt: docs/PERFORMANCE.md); they go by pull where they lie when the peer may read
     * them (a connection's {@code alloc()} gives large buffers there, and memory every peer may
     * read), else by WRITE rendezvous. 0: never copy.
     */
    public static final int DEFAULT_PULL_COPY_LIMIT = 64 * 1024;

    public EngineConfig {
        atLeast("sendQueueDepth", sendQueueDepth, 4);
        atLeast("recvQueueDepth", recvQueueDepth, 4);
        atLeast("eagerSize", eagerSize, 64);
        atLeast("clientEagerSize", clientEagerSize, 64);
        atLeast("fragmentSize", fragmentSize, 4096);
        if (sendWindowBytes < 1) {
            throw new IllegalArgumentException("sendWindowBytes must be at least 1, got " + sendWindowBytes);
        }
        atLeast("maxMessageSize", maxMessageSize, 1);
        atLeast("socketMessageWindow", socketMessageWindow, 1);
        atLeastTenMillis("heartbeatInterval", heartbeatInterval);
        atLeastTenMillis("drainTimeout", drainTimeout);
        if (maxPinnedDestinationBytes < 1) {
            throw new IllegalArgumentException("maxPinnedDestinationBytes must be at least 1, got " + maxPinnedDestinationBytes);
        }
        atLeastTenMillis("rendezvousWriteTimeout", rendezvousWriteTimeout);
        if (pullBudgetBytes < 4096) {
            throw new IllegalArgumentException("pullBudgetBytes must be at least 4096, got " + pullBudgetBytes);
        }
        atLeast("pullCopyLimit", pullCopyLimit, 0);
    }

    private static void atLeast(String name, int v, int min) {
        if (v < min) {
            throw new IllegalArgumentException(name + " must be at least " + min + ", got " + v);
        }
    }

    private static void atLeastTenMillis(String name, Duration v) {
        Objects.requireNonNull(v, name);
        if (v.toMillis() < 10) {
            throw new IllegalArgumentException(name + " must be at least 10 ms, got " + v.toMillis() + " ms");
        }
    }

    public static EngineConfig defaults() {
        return new EngineConfig(DEFAULT_SEND_QUEUE_DEPTH, DEFAULT_RECV_QUEUE_DEPTH, DEFAULT_EAGER_SIZE, DEFAULT_CLIENT_EAGER_SIZE,
                DEFAULT_FRAGMENT_SIZE, DEFAULT_SEND_WINDOW_BYTES, DEFAULT_MAX_MESSAGE_SIZE,
                DEFAULT_SOCKET_MESSAGE_WINDOW, DEFAULT_HEARTBEAT_INTERVAL, DEFAULT_DRAIN_TIMEOUT,
                DEFAULT_MAX_PINNED_DESTINATION_BYTES, DEFAULT_RENDEZVOUS_WRITE_TIMEOUT, DEFAULT_PULL_RENDEZVOUS,
                DEFAULT_PULL_BUDGET_BYTES, DEFAULT_PULL_COPY_LIMIT);
    }

    public EngineConfig withSendQueueDepth(int v) {
        return new EngineConfig(v, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes, maxMessageSize,
                socketMessageWindow, heartbeatInterval, drainTimeout, maxPinnedDestinationBytes,
                rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes, pullCopyLimit);
    }

    public EngineConfig withRecvQueueDepth(int v) {
        return new EngineConfig(sendQueueDepth, v, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes, maxMessageSize,
                socketMessageWindow, heartbeatInterval, drainTimeout, maxPinnedDestinationBytes,
                rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes, pullCopyLimit);
    }

    /** See {@link #DEFAULT_EAGER_SIZE}; at least 64 bytes. */
    public EngineConfig withEagerSize(int v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, v, clientEagerSize, fragmentSize, sendWindowBytes, maxMessageSize,
                socketMessageWindow, heartbeatInterval, drainTimeout, maxPinnedDestinationBytes,
                rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes, pullCopyLimit);
    }

    /** See {@link #DEFAULT_CLIENT_EAGER_SIZE}; at least 64 bytes. */
    public EngineConfig withClientEagerSize(int v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, v, fragmentSize, sendWindowBytes, maxMessageSize,
                socketMessageWindow, heartbeatInterval, drainTimeout, maxPinnedDestinationBytes,
                rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes, pullCopyLimit);
    }

    public EngineConfig withFragmentSize(int v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, v, sendWindowBytes, maxMessageSize,
                socketMessageWindow, heartbeatInterval, drainTimeout, maxPinnedDestinationBytes,
                rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes, pullCopyLimit);
    }

    public EngineConfig withSendWindowBytes(long v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, v, maxMessageSize,
                socketMessageWindow, heartbeatInterval, drainTimeout, maxPinnedDestinationBytes,
                rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes, pullCopyLimit);
    }

    public EngineConfig withMaxMessageSize(int v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes, v,
                socketMessageWindow, heartbeatInterval, drainTimeout, maxPinnedDestinationBytes,
                rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes, pullCopyLimit);
    }

    public EngineConfig withSocketMessageWindow(int v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes,
                maxMessageSize, v, heartbeatInterval, drainTimeout, maxPinnedDestinationBytes,
                rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes, pullCopyLimit);
    }

    public EngineConfig withHeartbeatInterval(Duration v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes,
                maxMessageSize, socketMessageWindow, v, drainTimeout, maxPinnedDestinationBytes,
                rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes, pullCopyLimit);
    }

    /** See {@link #DEFAULT_DRAIN_TIMEOUT}; at least 10 ms. */
    public EngineConfig withDrainTimeout(Duration v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes,
                maxMessageSize, socketMessageWindow, heartbeatInterval, v, maxPinnedDestinationBytes,
                rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes, pullCopyLimit);
    }

    /** See {@link #DEFAULT_MAX_PINNED_DESTINATION_BYTES}. */
    public EngineConfig withMaxPinnedDestinationBytes(long v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes,
                maxMessageSize, socketMessageWindow, heartbeatInterval, drainTimeout, v, rendezvousWriteTimeout,
                pullRendezvous, pullBudgetBytes, pullCopyLimit);
    }

    /** See {@link #DEFAULT_RENDEZVOUS_WRITE_TIMEOUT}; at least 10 ms. */
    public EngineConfig withRendezvousWriteTimeout(Duration v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes,
                maxMessageSize, socketMessageWindow, heartbeatInterval, drainTimeout, maxPinnedDestinationBytes, v,
                pullRendezvous, pullBudgetBytes, pullCopyLimit);
    }

    /** See {@link #DEFAULT_PULL_RENDEZVOUS}. */
    public EngineConfig withPullRendezvous(boolean v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes,
                maxMessageSize, socketMessageWindow, heartbeatInterval, drainTimeout, maxPinnedDestinationBytes,
                rendezvousWriteTimeout, v, pullBudgetBytes, pullCopyLimit);
    }

    /** See {@link #DEFAULT_PULL_BUDGET_BYTES}; at least 4 KiB (READs are then cut to it, below the fragment size). */
    public EngineConfig withPullBudgetBytes(long v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes,
                maxMessageSize, socketMessageWindow, heartbeatInterval, drainTimeout, maxPinnedDestinationBytes,
                rendezvousWriteTimeout, pullRendezvous, v, pullCopyLimit);
    }

    /** See {@link #DEFAULT_PULL_COPY_LIMIT}; 0 or more. */
    public EngineConfig withPullCopyLimit(int v) {
        return new EngineConfig(sendQueueDepth, recvQueueDepth, eagerSize, clientEagerSize, fragmentSize, sendWindowBytes,
                maxMessageSize, socketMessageWindow, heartbeatInterval, drainTimeout, maxPinnedDestinationBytes,
                rendezvousWriteTimeout, pullRendezvous, pullBudgetBytes, v);
    }

    /** The eager size an engine advertises and posts receive buffers for: the client's or the server's. */
    public int eagerSize(boolean client) {
        return client ? clientEagerSize : eagerSize;
    }

    /**
     * The largest message an engine SENDs eagerly when the peer's buffers take it: its own eager
     * size or one fragment, whichever is larger. Beyond a fragment a message goes by rendezvous, so
     * one SEND never holds the chain longer than a fragment does unless the sender took such
     * messages itself.
     */
    public int eagerSendLimit(boolean client) {
        return Math.max(eagerSize(client), fragmentSize);
    }

}
