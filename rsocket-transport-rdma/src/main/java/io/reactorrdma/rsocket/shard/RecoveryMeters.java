package io.reactorrdma.rsocket.shard;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** The meters of a {@link ShardClient}, tagged {@code shard} with its name: retries, retry-budget exhaustion, hedges, ejections. */
final class RecoveryMeters {

    final Counter retries;
    final Counter budgetExhausted;
    final Counter hedges;
    final Counter hedgesWon;
    private final MeterRegistry registry;
    private final String shard;

    RecoveryMeters(MeterRegistry registry, String shard) {
        this.registry = registry;
        this.shard = shard;
        this.retries = Counter.builder("rdma.recovery.retries").tag("shard", shard)
                .description("Idempotent calls sent again on another replica after a retryable failure").register(registry);
        this.budgetExhausted = Counter.builder("rdma.recovery.retry.budget.exhausted").tag("shard", shard)
                .description("Retries not sent because the retry budget was used up (the call failed with its cause)").register(registry);
        this.hedges = Counter.builder("rdma.recovery.hedges").tag("shard", shard)
                .description("Second copies of slow idempotent request-responses sent to another replica").register(registry);
        this.hedgesWon = Counter.builder("rdma.recovery.hedges.won").tag("shard", shard)
                .description("Hedges whose answer came first").register(registry);
    }

    /** Ejections of one replica (its connection closed: dead, silent, or unreachable). */
    Counter ejections(String replica) {
        return Counter.builder("rdma.recovery.ejections").tag("shard", shard).tag("replica", replica)
                .description("Times a replica was taken out of the balance because its connection closed").register(registry);
    }
}
