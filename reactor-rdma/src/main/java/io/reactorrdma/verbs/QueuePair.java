package io.reactorrdma.verbs;

import io.reactorrdma.verbs.work.RecvWr;
import io.reactorrdma.verbs.work.SendWr;

/**
 * A Reliable Connection queue pair ({@code struct ibv_qp}, type {@code IBV_QPT_RC}).
 *
 * <p>Send-queue slots are taken at post time and given back when the completion of that request,
 * or of a later signaled one on the same queue pair, is polled: unsignaled requests are retired by
 * the next signaled completion, exactly as on hardware. Receive slots are given back when their
 * completion is polled.
 */
public interface QueuePair extends AutoCloseable {

    /**
     * The queue-pair number ({@code qp_num}), the one completions carry. Known only once
     * {@link VerbsContext#connect} or {@link ConnectionRequest#accept} has returned: before that it
     * may read 0 (DiSNI creates the verbs QP during the connection; the soft provider in strict
     * mode does the same), so key nothing by it before then.
     */
    int qpNum();

    QpState state();

    QpAttributes attributes();

    /**
     * Posts {@code wrs[from .. from+count)} with one doorbell ({@code ibv_post_send} on a chained
     * list). All or nothing: if the batch does not fit the free send-queue slots, or the queue pair
     * cannot take requests (not connected, destroyed), or a request is malformed (too many SGEs, RDMA
     * opcode on a non-RDMA path), nothing is posted and a {@link VerbsException} says why.
     * On a queue pair in {@link QpState#ERROR} the requests are accepted and flushed with
     * {@link io.reactorrdma.verbs.work.WcStatus#WR_FLUSH_ERR}, as on hardware.
     */
    void postSend(SendWr[] wrs, int from, int count);

    /** Posts receives with one call ({@code ibv_post_recv}); all or nothing as for {@link #postSend}. */
    void postRecv(RecvWr[] wrs, int from, int count);

    /** Free send-queue slots now (depth minus posted-and-not-retired). */
    int freeSendSlots();

    /** Free receive-queue slots now. */
    int freeRecvSlots();

    /** Why the queue pair entered the error state, or null while it has not. */
    String errorCause();

    /** Destroys the queue pair ({@code ibv_destroy_qp}); a connected one is disconnected first. Idempotent. */
    @Override
    void close();
}
