package io.reactorrdma.verbs.work.tracking;

import io.reactorrdma.verbs.work.WcOpcode;
import io.reactorrdma.verbs.work.WcStatus;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;

/**
 * Turns one polled {@code ibv_wc}, given field by field, into the caller's {@link WorkCompletion}:
 * decodes the provider token in {@code wr_id}, gives back the caller's wrId, retires send slots, and
 * maps status, opcode, byte count and immediate data. Of a failed completion only {@code wr_id} and
 * the status are used (ibv_poll_cq(3) leaves the rest undefined, and DiSNI copies stale values): its
 * opcode, queue-pair number and detail come from the provider's own records. Allocation-free on success.
 */
public final class CompletionDecoder {

    private final QpTable table;

    public CompletionDecoder(QpTable table) {
        this.table = table;
    }

    /**
     * Fills {@code out}; false when the completion belongs to no live queue pair (a destroyed one's, or
     * a receive completion where none is outstanding). {@code imm} is in host order, read only when
     * {@code withImm}.
     */
    public boolean decode(long token, int ibvStatus, int ibvOpcode, int byteLen, int qpNum, boolean withImm, int imm,
                          WorkCompletion out) {
        QpRecord qp = table.lookup(token);
        if (qp == null) {
            return false;
        }
        WcStatus status = WcStatusText.status(ibvStatus);
        boolean ok = status == WcStatus.SUCCESS;
        if (WrTokens.isSend(token)) {
            int slot = WrTokens.slot(token);
            PostedWork w = qp.work;
            long wrId = w.sendWrId(slot);
            WrOpcode op = w.sendOpcode(slot);
            long bytes = w.sendBytes(slot);
            w.retireSendsThrough(slot);
            out.set(wrId, status, WcOpcode.forSend(op), ok ? byteLen : 0, ok ? qpNum : qp.qpNum());
            if (!ok) {
                fail(out, qp, ibvStatus, op + " of " + bytes + " bytes (wrId " + wrId + ")");
            }
            return true;
        }
        if (!qp.work.hasOutstandingRecv()) {
            return false; // nothing posted: cannot be ours
        }
        long wrId = qp.work.popRecv();
        if (ok) {
            WcOpcode op = WcOpcode.fromIbv(ibvOpcode);
            out.set(wrId, status, op != null ? op : WcOpcode.RECV, byteLen, qpNum);
            if (withImm) {
                out.setImmediate(imm);
            }
        } else {
            out.set(wrId, status, WcOpcode.RECV, 0, qp.qpNum());
            fail(out, qp, ibvStatus, "receive (wrId " + wrId + ")");
        }
        return true;
    }

    private static void fail(WorkCompletion out, QpRecord qp, int ibvStatus, String what) {
        String detail = WcStatusText.name(ibvStatus) + " on " + what + " of queue pair " + qp.qpNum() + ": "
                + WcStatusText.hint(ibvStatus);
        out.setErrorDetail(detail);
        qp.fail(detail);
    }
}
