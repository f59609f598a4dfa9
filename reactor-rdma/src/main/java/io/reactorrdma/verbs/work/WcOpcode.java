package io.reactorrdma.verbs.work;

/** Work-completion opcodes ({@code enum ibv_wc_opcode}); {@link #ibv()} is the C value. */
public enum WcOpcode {
    SEND(0),
    RDMA_WRITE(1),
    RDMA_READ(2),
    /** A receive consumed by a SEND or SEND_WITH_IMM. */
    RECV(128),
    /** A receive consumed by a WRITE_WITH_IMM; the completion carries the immediate data. */
    RECV_RDMA_WITH_IMM(129);

    private final int ibv;

    WcOpcode(int ibv) {
        this.ibv = ibv;
    }

    public int ibv() {
        return ibv;
    }

    /** The completion opcode a send request of this kind produces. */
    public static WcOpcode forSend(WrOpcode op) {
        switch (op) {
            case SEND:
            case SEND_WITH_IMM:
                return SEND;
            case WRITE:
            case WRITE_WITH_IMM:
                return RDMA_WRITE;
            default:
                return RDMA_READ;
        }
    }

    /** The opcode with this {@code ibv_wc_opcode} value, or null. */
    public static WcOpcode fromIbv(int ibv) {
        switch (ibv) {
            case 0: return SEND;
            case 1: return RDMA_WRITE;
            case 2: return RDMA_READ;
            case 128: return RECV;
            case 129: return RECV_RDMA_WITH_IMM;
            default: return null;
        }
    }
}
