package io.reactorrdma.perf.cli;

/** fanout's {@code --client}: how the client reaches each shard's replicas. */
public enum FanoutClient {
    /** The recovery layer's ShardClient per shard and its FanOut helper: weighted balancing, retries, hedging (the default). */
    SHARD("shard"),
    /** RSocket-Java's LoadbalanceRSocketClient per shard, round robin, no timeouts, retries or hedging: the baseline. */
    PLAIN("plain");

    private final String id;

    FanoutClient(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    public static FanoutClient parse(String s) {
        return CliIds.parse(values(), FanoutClient::id, s, () -> "unknown --client '" + s
                + "'; use shard (the recovery layer's shard client) or plain (RSocket's load balancer per shard)");
    }
}
