package io.reactorrdma.verbs.work;


/**
 * A reusable work completion ({@code struct ibv_wc}), filled by
 * {@link io.reactorrdma.verbs.CompletionQueue#poll(WorkCompletion[], int)}. Preallocate an array of them and poll into
 * it: polling allocates nothing.
 */
public final class WorkCompletion {

    private long wrId;
    private WcStatus status = WcStatus.SUCCESS;
    private WcOpcode opcode = WcOpcode.SEND;
    private int byteLen;
    private int immData;
    private boolean hasImm;
    private int qpNum;
    private String errorDetail;

    /** Filled by providers. */
    public void set(long wrId, WcStatus status, WcOpcode opcode, int byteLen, int qpNum) {
        this.wrId = wrId;
        this.status = status;
        this.opcode = opcode;
        this.byteLen = byteLen;
        this.qpNum = qpNum;
        this.hasImm = false;
        this.immData = 0;
        this.errorDetail = null;
    }

    /** Filled by providers for completions that carry immediate data ({@code IBV_WC_WITH_IMM}). */
    public void setImmediate(int immData) {
        this.immData = immData;
        this.hasImm = true;
    }

    /** Filled by providers: why an error completion happened, beyond its status. */
    public void setErrorDetail(String detail) {
        this.errorDetail = detail;
    }

    /** A new completion with the same fields (for keeping one past the next poll into a reused array). */
    public static WorkCompletion copyOf(WorkCompletion w) {
        WorkCompletion c = new WorkCompletion();
        c.set(w.wrId, w.status, w.opcode, w.byteLen, w.qpNum);
        if (w.hasImm) {
            c.setImmediate(w.immData);
        }
        c.setErrorDetail(w.errorDetail);
        return c;
    }

    public long wrId() {
        return wrId;
    }

    public WcStatus status() {
        return status;
    }

    public boolean isSuccess() {
        return status == WcStatus.SUCCESS;
    }

    public WcOpcode opcode() {
        return opcode;
    }

    /**
     * Bytes received, defined only where verbs define {@code byte_len}: successful receive
     * completions ({@link WcOpcode#RECV}, {@link WcOpcode#RECV_RDMA_WITH_IMM}) and RDMA READ (and
     * atomics). For SEND and WRITE completions, and for failed ones, hardware leaves it stale
     * (mlx5 does not write it) — never read it there; the soft provider in strict mode reports -1.
     */
    public int byteLen() {
        return byteLen;
    }

    public boolean hasImm() {
        return hasImm;
    }

    public int immData() {
        return immData;
    }

    public int qpNum() {
        return qpNum;
    }

    /** For error completions: what the provider knows of the cause (may be null). */
    public String errorDetail() {
        return errorDetail;
    }

    @Override
    public String toString() {
        return "WorkCompletion{wrId=" + wrId + ", " + status + ", " + opcode + ", byteLen=" + byteLen
                + (hasImm ? ", imm=0x" + Integer.toHexString(immData) : "") + ", qp=" + qpNum
                + (errorDetail != null ? ", detail=" + errorDetail : "") + "}";
    }
}
