package io.reactorrdma.rsocket.shard;

import reactor.util.annotation.Nullable;

import java.nio.channels.ClosedChannelException;

/**
 * A call failed because the connection to a replica closed under it: a
 * {@link ClosedChannelException} that names the replica and carries why its connection closed.
 * RSocket-Java 1.1.5 fails the calls in flight on a closed connection with one shared
 * {@code ClosedChannelException} without cause or peer; {@link ShardClient} replaces it with this
 * one, so a caller can tell which replica went and why (the cause is the transport's close error,
 * e.g. the RDMA engine's "peer ... dead").
 */
public final class PeerClosedChannelException extends ClosedChannelException {

    private static final long serialVersionUID = 1L;

    private final String peer;

    /**
     * @param peer  the replica, as its key ({@code host:port} for {@link ShardClient.Builder#replicas})
     * @param cause why its connection closed, or null when it closed without an error (or not yet)
     */
    public PeerClosedChannelException(String peer, @Nullable Throwable cause) {
        this.peer = peer;
        if (cause != null) {
            initCause(cause);
        }
    }

    /** The replica whose connection closed. */
    public String peer() {
        return peer;
    }

    /** "the connection to replica {@code peer} closed", then the close error and its causes. */
    @Override
    public String getMessage() {
        StringBuilder s = new StringBuilder("the connection to replica ").append(peer).append(" closed");
        Throwable c = getCause();
        if (c == null) {
            return s.append(" (no cause known)").toString();
        }
        s.append(": ").append(c);
        for (Throwable t = c.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
            s.append(" <- ").append(t);
        }
        return s.toString();
    }
}
