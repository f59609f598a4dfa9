package io.reactorrdma.verbs.ffm.rdmacore;

import io.reactorrdma.verbs.ffm.abi.Offsets;
import io.reactorrdma.verbs.ffm.abi.WorkRequestLayouts;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Reads the fields of the i-th {@code struct ibv_wc} of a buffer {@link RdmaCq#poll} filled. No allocation. */
public final class WorkCompletions {

    private static final long SIZE = WorkRequestLayouts.IBV_WC.byteSize();
    private static final long WR_ID = offset("wr_id");
    private static final long STATUS = offset("status");
    private static final long OPCODE = offset("opcode");
    private static final long BYTE_LEN = offset("byte_len");
    private static final long QP_NUM = offset("qp_num");
    private static final long WC_FLAGS = offset("wc_flags");
    private static final long IMM = Offsets.of(WorkRequestLayouts.IBV_WC, "imm", "imm_data");

    private WorkCompletions() {
    }

    public static long wrId(MemorySegment wcs, int i) {
        return wcs.get(ValueLayout.JAVA_LONG, i * SIZE + WR_ID);
    }

    public static int status(MemorySegment wcs, int i) {
        return wcs.get(ValueLayout.JAVA_INT, i * SIZE + STATUS);
    }

    public static int opcode(MemorySegment wcs, int i) {
        return wcs.get(ValueLayout.JAVA_INT, i * SIZE + OPCODE);
    }

    public static int byteLen(MemorySegment wcs, int i) {
        return wcs.get(ValueLayout.JAVA_INT, i * SIZE + BYTE_LEN);
    }

    public static int qpNum(MemorySegment wcs, int i) {
        return wcs.get(ValueLayout.JAVA_INT, i * SIZE + QP_NUM);
    }

    public static int flags(MemorySegment wcs, int i) {
        return wcs.get(ValueLayout.JAVA_INT, i * SIZE + WC_FLAGS);
    }

    /** The immediate data, when {@link #flags} has {@code IBV_WC_WITH_IMM}. */
    public static int immediate(MemorySegment wcs, int i) {
        return wcs.get(ValueLayout.JAVA_INT, i * SIZE + IMM);
    }

    private static long offset(String field) {
        return Offsets.of(WorkRequestLayouts.IBV_WC, field);
    }
}
