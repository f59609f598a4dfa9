package io.reactorrdma.verbs.disni.work;

import com.ibm.disni.verbs.IbvWC;
import io.reactorrdma.verbs.disni.calls.DisniCodes;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.tracking.CompletionDecoder;
import io.reactorrdma.verbs.work.tracking.QpTable;

/**
 * Turns a DiSNI {@link IbvWC} into the caller's {@link WorkCompletion} through the shared
 * {@link CompletionDecoder}: what is DiSNI's here is reading its object and the byte order of its
 * immediate data. DiSNI copies only {@code wr_id}, {@code status} and {@code opcode} of a failed
 * completion (the rest keeps stale values), which the decoder does not read. Allocation-free on success.
 */
public final class CompletionMapper {

    private final CompletionDecoder decoder;

    public CompletionMapper(QpTable table) {
        this.decoder = new CompletionDecoder(table);
    }

    /** Fills {@code out} from {@code wc}; false when the completion belongs to a destroyed queue pair. */
    public boolean map(IbvWC wc, WorkCompletion out) {
        boolean withImm = (wc.getWc_flags() & DisniCodes.IBV_WC_WITH_IMM) != 0;
        return decoder.decode(wc.getWr_id(), wc.getStatus(), wc.getOpcode(), wc.getByte_len(), wc.getQp_num(), withImm,
                withImm ? DisniCodes.immFromWire(wc.getImm_data()) : 0, out);
    }
}
