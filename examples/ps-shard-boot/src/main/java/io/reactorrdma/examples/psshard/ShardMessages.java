package io.reactorrdma.examples.psshard;

/** The shard's messages, JSON on the wire (Boot's {@code RSocketStrategies}). */
public final class ShardMessages {

    private ShardMessages() {
    }

    /** {@code fetch}: the rows of these keys. */
    public record FetchRequest(long[] keys) {
    }

    /** The rows asked for, in the order of the keys. */
    public record FetchReply(long[] keys, float[][] rows) {
    }

    /** {@code push} / {@code push-stream}: gradients of these keys' rows, one per key. */
    public record GradientBatch(long[] keys, float[][] gradients) {
    }

    /** {@code push-stream}: one per batch received, the rows it updated. */
    public record PushAck(int rowsUpdated) {
    }

    /** {@code info}: what this shard holds. */
    public record ShardInfo(int index, int count, int rows, int dimension) {
    }
}
