package io.reactorrdma.verbs.work;

/**
 * Work-completion status ({@code enum ibv_wc_status}); {@link #ibv()} is the C value. Only the
 * statuses an RC queue pair without atomics can produce are listed.
 */
public enum WcStatus {
    SUCCESS(0, "success"),
    /** The message is longer than the receive buffer (responder), or than the port allows (requester). */
    LOC_LEN_ERR(1, "local length error: the message does not fit the posted buffer"),
    LOC_QP_OP_ERR(2, "local QP operation error: the queue pair found its own state or a peer descriptor inconsistent"),
    /** A local scatter/gather entry names an unknown lkey, lies outside its region, or lacks LOCAL_WRITE. */
    LOC_PROT_ERR(4, "local protection error: a scatter/gather entry does not lie in a registered region with the needed access"),
    /** Flushed because the queue pair entered the error state before this request ran. */
    WR_FLUSH_ERR(5, "flushed: the queue pair is in the error state"),
    /** The responder could not accept the request (e.g. the SEND was larger than its receive buffer). */
    REM_INV_REQ_ERR(9, "remote invalid request: the peer could not accept the request"),
    /** Unknown, deregistered or out-of-bounds rkey, or a region without the needed remote access. */
    REM_ACCESS_ERR(10, "remote access error: the rkey, address range or access rights do not match a registered peer region"),
    /** The responder failed to carry out the request (e.g. its receive descriptor was malformed). */
    REM_OP_ERR(11, "remote operation error: the peer failed to carry out the request"),
    /** The peer stopped answering: it died, vanished or its queue pair is gone. */
    RETRY_EXC_ERR(12, "transport retry counter exceeded: the peer is dead, gone or its queue pair is in error"),
    /** The peer had no receive posted for longer than the RNR retry budget. */
    RNR_RETRY_EXC_ERR(13, "receiver-not-ready retry counter exceeded: the peer posted no receive in time"),
    GENERAL_ERR(21, "general error");

    private static final WcStatus[] BY_IBV = new WcStatus[32];

    static {
        for (WcStatus s : values()) {
            BY_IBV[s.ibv] = s;
        }
    }

    private final int ibv;
    private final String description;

    WcStatus(int ibv, String description) {
        this.ibv = ibv;
        this.description = description;
    }

    public int ibv() {
        return ibv;
    }

    /** What the status means, for error messages. */
    public String description() {
        return description;
    }

    /** The status with this {@code ibv_wc_status} value, or null. */
    public static WcStatus fromIbv(int ibv) {
        return ibv >= 0 && ibv < BY_IBV.length ? BY_IBV[ibv] : null;
    }
}
