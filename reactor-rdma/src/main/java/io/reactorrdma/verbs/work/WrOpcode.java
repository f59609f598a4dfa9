package io.reactorrdma.verbs.work;

/** Send work-request opcodes ({@code enum ibv_wr_opcode}); {@link #ibv()} is the C value. */
public enum WrOpcode {
    /** {@code IBV_WR_RDMA_WRITE}: write into a peer's region; consumes no receive. */
    WRITE(0),
    /** {@code IBV_WR_RDMA_WRITE_WITH_IMM}: write, then consume a receive and deliver the immediate. */
    WRITE_WITH_IMM(1),
    /** {@code IBV_WR_SEND}: consumes the peer's next posted receive. */
    SEND(2),
    /** {@code IBV_WR_SEND_WITH_IMM}: SEND plus 32 bits of immediate data. */
    SEND_WITH_IMM(3),
    /** {@code IBV_WR_RDMA_READ}: read from a peer's region into local buffers. */
    READ(4);

    private static final WrOpcode[] BY_IBV = {WRITE, WRITE_WITH_IMM, SEND, SEND_WITH_IMM, READ};
    private final int ibv;

    WrOpcode(int ibv) {
        this.ibv = ibv;
    }

    /** The {@code ibv_wr_opcode} value. */
    public int ibv() {
        return ibv;
    }

    /** Whether this opcode consumes a receive at the peer (and so costs a receive credit). */
    public boolean consumesRecv() {
        return this == SEND || this == SEND_WITH_IMM || this == WRITE_WITH_IMM;
    }

    /** Whether the request carries immediate data. */
    public boolean hasImmediate() {
        return this == SEND_WITH_IMM || this == WRITE_WITH_IMM;
    }

    /** Whether the request addresses a remote region (remote address + rkey). */
    public boolean isRdma() {
        return this == WRITE || this == WRITE_WITH_IMM || this == READ;
    }

    /** The opcode with this {@code ibv_wr_opcode} value, or null. */
    public static WrOpcode fromIbv(int ibv) {
        return ibv >= 0 && ibv < BY_IBV.length ? BY_IBV[ibv] : null;
    }
}
