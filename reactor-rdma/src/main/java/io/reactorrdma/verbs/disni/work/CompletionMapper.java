package io.reactorrdma.verbs.disni.work;

import com.ibm.disni.verbs.IbvWC;
import io.reactorrdma.verbs.work.WcOpcode;
import io.reactorrdma.verbs.work.WcStatus;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;
import io.reactorrdma.verbs.disni.calls.DisniCodes;

/**
 * Turns a DiSNI {@link IbvWC} into the caller's {@link WorkCompletion}: decodes the provider token
 * in {@code wr_id}, gives back the caller's wrId, retires send slots, and maps status, opcode,
 * byte count and immediate data. DiSNI copies only {@code wr_id}, {@code status} and
 * {@code opcode} of a failed completion (the rest keeps stale values), so for errors the opcode,
 * queue-pair number and detail come from the provider's own records. Allocation-free on success.
 */
public final class CompletionMapper {

    private final QpTable table;

    public CompletionMapper(QpTable table) {
        this.table = table;
    }

    /** Fills {@code out} from {@code wc}; false when the completion belongs to a destroyed queue pair. */
    public boolean map(IbvWC wc, WorkCompletion out) {
        long token = wc.getWr_id();
        QpRecord qp = table.lookup(token);
        if (qp == null) {
            return false;
        }
        int ibvStatus = wc.getStatus();
        WcStatus status = DisniCodes.status(ibvStatus);
        boolean ok = status == WcStatus.SUCCESS;
        if (WrTokens.isSend(token)) {
            int slot = WrTokens.slot(token);
            PostedWork w = qp.work;
            long wrId = w.sendWrId(slot);
            WrOpcode op = w.sendOpcode(slot);
            long bytes = w.sendBytes(slot);
            w.retireSendsThrough(slot);
            out.set(wrId, status, WcOpcode.forSend(op), ok ? wc.getByte_len() : 0, ok ? wc.getQp_num() : qp.qpNum());
            if (!ok) {
                String detail = detail(ibvStatus, op + " of " + bytes + " bytes (wrId " + wrId + ")", qp);
                out.setErrorDetail(detail);
                qp.fail(detail);
            }
            return true;
        }
        if (!qp.work.hasOutstandingRecv()) {
            return false; // nothing posted: cannot be ours
        }
        long wrId = qp.work.popRecv();
        if (ok) {
            WcOpcode op = WcOpcode.fromIbv(wc.getOpcode());
            out.set(wrId, status, op != null ? op : WcOpcode.RECV, wc.getByte_len(), wc.getQp_num());
            if ((wc.getWc_flags() & DisniCodes.IBV_WC_WITH_IMM) != 0) {
                out.setImmediate(DisniCodes.immFromWire(wc.getImm_data()));
            }
        } else {
            out.set(wrId, status, WcOpcode.RECV, 0, qp.qpNum());
            String detail = detail(ibvStatus, "receive (wrId " + wrId + ")", qp);
            out.setErrorDetail(detail);
            qp.fail(detail);
        }
        return true;
    }

    private static String detail(int ibvStatus, String what, QpRecord qp) {
        return DisniCodes.ibvStatusName(ibvStatus) + " on " + what + " of queue pair " + qp.qpNum() + ": "
                + DisniCodes.errorHint(ibvStatus);
    }
}
