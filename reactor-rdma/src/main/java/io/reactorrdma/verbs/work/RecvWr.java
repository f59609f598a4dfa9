package io.reactorrdma.verbs.work;


/**
 * A reusable receive work request ({@code struct ibv_recv_wr}): the buffers the next incoming
 * SEND (or WRITE_WITH_IMM's completion) consumes. Reusable once
 * {@link io.reactorrdma.verbs.QueuePair#postRecv(RecvWr[], int, int)} returns.
 */
public final class RecvWr extends ScatterGatherList {

    private long wrId;

    public RecvWr() {
        this(1);
    }

    public RecvWr(int maxSge) {
        super(maxSge);
    }

    public long wrId() {
        return wrId;
    }

    public RecvWr wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    @Override
    public String toString() {
        return "RecvWr{wrId=" + wrId + ", sges=" + numSge() + ", bytes=" + totalLength() + "}";
    }
}
