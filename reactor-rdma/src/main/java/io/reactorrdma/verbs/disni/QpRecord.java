package io.reactorrdma.verbs.disni;

import io.reactorrdma.verbs.QpState;

/**
 * The provider-side state of one queue pair that completions need: its slot in the
 * {@link QpTable}, its posted work, number, state and first error. DiSNI never updates
 * {@code IbvQP.getState()}, so the provider tracks the state itself.
 */
final class QpRecord {

    final int index;
    final int generation;
    final PostedWork work;
    private volatile int qpNum;
    private volatile QpState state = QpState.INIT;
    private volatile String errorCause;

    QpRecord(int index, int generation, PostedWork work) {
        this.index = index;
        this.generation = generation;
        this.work = work;
    }

    long sendToken(int slot) {
        return WrTokens.send(index, generation, slot);
    }

    long recvToken() {
        return WrTokens.recv(index, generation);
    }

    int qpNum() {
        return qpNum;
    }

    void qpNum(int n) {
        qpNum = n;
    }

    QpState state() {
        return state;
    }

    /**
     * INIT → RTS. The transitions are synchronized: the connecting thread's ESTABLISHED, the I/O
     * thread's error completion and the CM thread's DISCONNECTED may race, and a check-then-set
     * could turn an ERROR back into RTS (or lose the first cause). Reads stay lock-free.
     */
    synchronized void established() {
        if (state == QpState.INIT) {
            state = QpState.RTS;
        }
    }

    /** Moves to ERROR, keeping the first cause. */
    synchronized void fail(String cause) {
        if (state == QpState.DESTROYED) {
            return;
        }
        if (errorCause == null) {
            errorCause = cause;
        }
        state = QpState.ERROR;
    }

    synchronized void destroyed() {
        state = QpState.DESTROYED;
    }

    String errorCause() {
        return errorCause;
    }
}
