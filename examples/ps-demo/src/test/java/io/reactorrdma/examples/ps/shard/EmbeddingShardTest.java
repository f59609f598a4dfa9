package io.reactorrdma.examples.ps.shard;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.reactorrdma.examples.ps.wire.FetchReply;
import io.reactorrdma.examples.ps.wire.FetchRequest;
import io.reactorrdma.examples.ps.wire.PushBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EmbeddingShardTest {

    private final ByteBufAllocator alloc = new UnpooledByteBufAllocator(true);
    private final ShardConfig config = ShardConfig.of(1, 4).withRows(100).withDimension(8).withLearningRate(0.5f).withSeed(7);
    private final EmbeddingShard shard = new EmbeddingShard(config, alloc);

    @AfterEach
    void release() {
        shard.release();
    }

    @Test
    void rowsStartAtTheSeedsValues() {
        assertThat(shard.get(5, 3)).isEqualTo(EmbeddingShard.initialValue(7, 5, 3));
        assertThat(EmbeddingShard.initialValue(7, 5, 3)).isBetween(-0.05f, 0.05f).isNotEqualTo(EmbeddingShard.initialValue(8, 5, 3));
    }

    @Test
    void aKeyOfAnotherShardNamesTheRightOne() {
        assertThatThrownBy(() -> shard.rowOf(6)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key 6 is not held by shard 1 of 4").hasMessageContaining("send it to shard 2");
        assertThatThrownBy(() -> shard.rowOf(401)).hasMessageContaining("row 100 of shard 1, which holds 100 rows")
                .hasMessageContaining("largest key here is 397");
        assertThatThrownBy(() -> shard.rowOf(-3)).hasMessageContaining("keys are >= 0");
    }

    @Test
    void anSgdStepMovesTheRowByExactlyLrTimesGrad() {
        float[] before = new float[8];
        float[] grad = new float[8];
        for (int c = 0; c < 8; c++) {
            before[c] = shard.get(9, c);
            grad[c] = c - 3.5f;
        }
        shard.apply(9, grad);
        for (int c = 0; c < 8; c++) {
            assertThat(shard.get(9, c)).isEqualTo(before[c] - 0.5f * grad[c]);
        }
        ByteBuf batch = PushBatch.encode(alloc, 8, new long[]{13}, 0, 1, (r, c) -> 2f);
        float b = shard.get(13, 0);
        try {
            assertThat(shard.apply(batch)).isEqualTo(1);
        } finally {
            batch.release();
        }
        assertThat(shard.get(13, 0)).isEqualTo(b - 0.5f * 2f);
        assertThat(shard.get(9, 0)).as("other rows untouched").isEqualTo(before[0] - 0.5f * grad[0]);
    }

    @Test
    void aBadBatchChangesNothing() {
        float b = shard.get(1, 0);
        ByteBuf batch = PushBatch.encode(alloc, 8, new long[]{1, 2}, 0, 2, (r, c) -> 1f);
        try {
            assertThatThrownBy(() -> shard.apply(batch)).hasMessageContaining("key 2 is not held by shard 1");
        } finally {
            batch.release();
        }
        ByteBuf wrongDim = PushBatch.encode(alloc, 4, new long[]{1}, 0, 1, (r, c) -> 1f);
        try {
            assertThatThrownBy(() -> shard.apply(wrongDim)).hasMessageContaining("dimension 4").hasMessageContaining("rows have 8 floats");
        } finally {
            wrongDim.release();
        }
        assertThat(shard.get(1, 0)).isEqualTo(b);
    }

    @Test
    void fetchSlicesTheTableWithoutCopyingAndCoalescesRuns() {
        ByteBuf request = FetchRequest.encode(alloc, 5, 9, 13, 1);
        ByteBuf reply = shard.fetch(request, alloc);
        try {
            assertThat(FetchReply.count(reply)).isEqualTo(4);
            assertThat(FetchReply.dimension(reply)).isEqualTo(8);
            assertThat(FetchReply.value(reply, 8, 3, 2)).isEqualTo(EmbeddingShard.initialValue(7, 1, 2));
            assertThat(((io.netty.buffer.CompositeByteBuf) reply).numComponents()).as("header, rows 1..3, row 0").isEqualTo(3);
            shard.apply(5, new float[]{2, 0, 0, 0, 0, 0, 0, 0});
            assertThat(FetchReply.value(reply, 8, 0, 0)).as("the reply reads the table itself")
                    .isEqualTo(EmbeddingShard.initialValue(7, 5, 0) - 1f);
        } finally {
            reply.release();
            request.release();
        }
    }

    @Test
    void configIsValidated() {
        assertThatThrownBy(() -> ShardConfig.of(4, 4)).hasMessageContaining("index must be in 0..3");
        assertThatThrownBy(() -> ShardConfig.of(0, 1).withRows(1 << 20).withDimension(1024)).hasMessageContaining("over the 1024 MiB");
        assertThatThrownBy(() -> ShardConfig.of(0, 1).withLearningRate(0)).hasMessageContaining("learningRate");
    }
}
