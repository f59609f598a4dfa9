package io.reactorrdma.examples.ps.trainer;

import io.reactorrdma.examples.ps.ranker.ShardClients;
import io.reactorrdma.examples.ps.shard.EmbeddingShard;
import io.reactorrdma.examples.ps.shard.ShardConfig;
import io.reactorrdma.examples.ps.shard.ShardFixture;
import io.reactorrdma.examples.ps.wire.PushBatch;
import io.rsocket.core.RSocketClient;
import io.rsocket.transport.ClientTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/** Trainers against shards in this JVM: each push is acked and moves exactly the rows it carried. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TrainerTest {

    private static final int SHARDS = 2;
    private static final int ROWS = 1024;
    private static final int DIM = 16;
    private static final long SEED = 5;
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final ShardFixture fixture = new ShardFixture(
            ShardConfig.of(0, SHARDS).withRows(ROWS).withDimension(DIM).withSeed(SEED),
            ShardConfig.of(1, SHARDS).withRows(ROWS).withDimension(DIM).withSeed(SEED));
    private Map<Integer, RSocketClient> clients = Map.of();

    @AfterEach
    void close() {
        ShardClients.dispose(clients, WAIT);
        fixture.close();
    }

    private long changedRows() {
        long changed = 0;
        for (int s = 0; s < SHARDS; s++) {
            EmbeddingShard shard = fixture.servers.get(s).shard();
            for (int r = 0; r < ROWS; r++) {
                long key = (long) r * SHARDS + s;
                if (shard.get(key, 0) != EmbeddingShard.initialValue(SEED, key, 0)) {
                    changed++;
                }
            }
        }
        return changed;
    }

    private void oneStepMovesThePushedRows(IntFunction<ClientTransport> transport, boolean registered) {
        List<ClientTransport> t = new ArrayList<>();
        for (int s = 0; s < SHARDS; s++) {
            t.add(transport.apply(s));
        }
        clients = ShardClients.plain(t);
        AtomicLong pushes = new AtomicLong();
        AtomicLong rows = new AtomicLong();
        TrainerSettings config = TrainerSettings.defaults().withDimension(DIM).withRowsPerShard(ROWS).withFetchRows(8).withSeed(SEED)
                .withComputeNanos(100_000).withPushSizes(4096, 10_000);
        try (Trainer trainer = new Trainer(clients, config, (nanos, bytes) -> {
            pushes.incrementAndGet();
            rows.addAndGet((bytes - PushBatch.HEADER_BYTES) / (Long.BYTES + Float.BYTES * DIM));
        }, registered ? fixture.clientResources.allocator().byteBufAllocator() : io.netty.buffer.ByteBufAllocator.DEFAULT)) {
            trainer.step().block(WAIT);
            assertThat(pushes.get()).as("one acked push per shard").isEqualTo(SHARDS);
            assertThat(rows.get()).isEqualTo(trainer.rowsPushed()).isPositive();
            // one block of distinct rows per shard, each moved by lr * g with g in [0.1, 0.2]
            assertThat(changedRows()).as("rows changed by the step").isEqualTo(trainer.rowsPushed());
            for (int i = 0; i < 3; i++) {
                trainer.step().block(WAIT);
            }
            assertThat(pushes.get()).isEqualTo(4L * SHARDS);
            assertThat(trainer.steps()).isEqualTo(4);
        }
    }

    @Test
    void aStepOverRdmaPushesAckedBatchesThatMoveTheRows() {
        oneStepMovesThePushedRows(fixture::rdma, true);
        assertThat(ShardFixture.counter(fixture.clientMeters, "rdma.copies.on.send"))
                .as("batches written into registered memory go without a copy").isZero();
        assertThat(ShardFixture.counter(fixture.serverMeters, "rdma.copies.on.send"))
                .as("fetch replies and acks go without a copy").isZero();
    }

    @Test
    void aStepOverTcp() {
        oneStepMovesThePushedRows(fixture::tcp, false);
    }
}
