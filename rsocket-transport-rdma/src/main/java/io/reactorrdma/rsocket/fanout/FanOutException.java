package io.reactorrdma.rsocket.fanout;

import java.util.List;

/**
 * A {@link FanOut} failed: the shard (or shards, for a deadline) it failed on, and why (the
 * cause: the shard client's error, or a {@link java.util.concurrent.TimeoutException}).
 */
public final class FanOutException extends RuntimeException {

    private final transient List<Object> shards;
    private final boolean timeout;

    FanOutException(String message, List<?> shards, boolean timeout, Throwable cause) {
        super(message, cause);
        this.shards = List.copyOf(shards);
        this.timeout = timeout;
    }

    /** The shards the fan-out failed on: the one that failed, or those that had not answered by the deadline. */
    public List<Object> shards() {
        return shards;
    }

    /** True when the deadline passed; false when a shard failed. */
    public boolean isTimeout() {
        return timeout;
    }
}
