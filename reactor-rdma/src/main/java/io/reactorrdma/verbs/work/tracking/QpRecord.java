package io.reactorrdma.verbs.work.tracking;

import io.reactorrdma.verbs.QpState;

/**
 * The provider-side state of one queue pair that completions need: its slot in the
 * {@link QpTable}, its posted work, number, state and first error. The provider tracks the state
 * itself: DiSNI never updates {@code IbvQP.getState()}, and rdma-core's {@code ibv_qp.state} is only what
 * the library last set, not what the device did (an error completion does not change it).
 */
public final class QpRecord {

    final int index;
    final int generation;
    public final PostedWork work;
    private volatile int qpNum;
    private volatile QpState state = QpState.INIT;
    private volatile String errorCause;

    QpRecord(int index, int generation, PostedWork work) {
        this.index = index;
        this.generation = generation;
        this.work = work;
    }

    public long sendToken(int slot) {
        return WrTokens.send(index, generation, slot);
    }

    public long recvToken() {
        return WrTokens.recv(index, generation);
    }

    public int qpNum() {
        return qpNum;
    }

    public void qpNum(int n) {
        qpNum = n;
    }

    public QpState state() {
        return state;
    }

    /**
     * INIT → RTS. The transitions are synchronized: the connecting thread's ESTABLISHED, the I/O
     * thread's error completion and the CM thread's DISCONNECTED may race, and a check-then-set
     * could turn an ERROR back into RTS (or lose the first cause). Reads stay lock-free.
     */
    public synchronized void established() {
        if (state == QpState.INIT) {
            state = QpState.RTS;
        }
    }

    /** Moves to ERROR, keeping the first cause. */
    public synchronized void fail(String cause) {
        if (state == QpState.DESTROYED) {
            return;
        }
        if (errorCause == null) {
            errorCause = cause;
        }
        state = QpState.ERROR;
    }

    public synchronized void destroyed() {
        state = QpState.DESTROYED;
    }

    public String errorCause() {
        return errorCause;
    }
}
