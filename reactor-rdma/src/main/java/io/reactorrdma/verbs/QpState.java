package io.reactorrdma.verbs;

/** Queue-pair states ({@code enum ibv_qp_state}) that this SPI exposes. */
public enum QpState {
    /** Created, receives may be posted; not connected yet (covers IBV_QPS_INIT). */
    INIT(1),
    /** Connected: ready to send and receive (IBV_QPS_RTS). */
    RTS(3),
    /** Failed or disconnected: every outstanding and later request completes with an error (IBV_QPS_ERR). */
    ERROR(6),
    /** Destroyed ({@code ibv_destroy_qp}); using it is an error. */
    DESTROYED(-1);

    private final int ibv;

    QpState(int ibv) {
        this.ibv = ibv;
    }

    public int ibv() {
        return ibv;
    }
}
