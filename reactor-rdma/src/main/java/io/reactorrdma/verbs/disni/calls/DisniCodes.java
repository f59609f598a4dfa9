package io.reactorrdma.verbs.disni.calls;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.work.ScatterGatherList;
import io.reactorrdma.verbs.work.WcStatus;
import io.reactorrdma.verbs.work.WrOpcode;
import io.reactorrdma.verbs.work.tracking.WcStatusText;

import java.nio.ByteOrder;
import java.util.LinkedList;

/**
 * Pure value translation between the SPI and DiSNI 2.1: access flags, opcodes, completion statuses,
 * the byte order of immediate data and scatter/gather lists. The SPI's values equal the C constants, and so DiSNI's;
 * this class still maps through DiSNI's named constants so a mismatch would show in its tests.
 */
public final class DisniCodes {

    /** {@code IBV_WC_WITH_IMM} of {@code enum ibv_wc_flags}; DiSNI 2.1 has no constant for it. */
    public static final int IBV_WC_WITH_IMM = 1 << 1;

    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    private static final IbvWC.IbvWcStatus[] IBV_STATUSES = IbvWC.IbvWcStatus.values();

    private DisniCodes() {
    }

    /** {@link AccessFlags} bits as {@code IbvMr.IBV_ACCESS_*} bits. */
    public static int accessToIbv(int access) {
        AccessFlags.validate(access);
        int ibv = 0;
        if ((access & AccessFlags.LOCAL_WRITE) != 0) {
            ibv |= IbvMr.IBV_ACCESS_LOCAL_WRITE;
        }
        if ((access & AccessFlags.REMOTE_WRITE) != 0) {
            ibv |= IbvMr.IBV_ACCESS_REMOTE_WRITE;
        }
        if ((access & AccessFlags.REMOTE_READ) != 0) {
            ibv |= IbvMr.IBV_ACCESS_REMOTE_READ;
        }
        return ibv;
    }

    /** The {@code IbvSendWR.IBV_WR_*} opcode. */
    public static int opcodeToIbv(WrOpcode op) {
        switch (op) {
            case WRITE: return IbvSendWR.IBV_WR_RDMA_WRITE;
            case WRITE_WITH_IMM: return IbvSendWR.IBV_WR_RDMA_WRITE_WITH_IMM;
            case SEND: return IbvSendWR.IBV_WR_SEND;
            case SEND_WITH_IMM: return IbvSendWR.IBV_WR_SEND_WITH_IMM;
            case READ: return IbvSendWR.IBV_WR_RDMA_READ;
            default: throw new IllegalArgumentException("opcode " + op);
        }
    }

    /** A request's scatter/gather entries as DiSNI's {@code sg_list} (built only when a post call is built). */
    static LinkedList<IbvSge> sgeList(ScatterGatherList wr) {
        LinkedList<IbvSge> sges = new LinkedList<>();
        for (int j = 0; j < wr.numSge(); j++) {
            IbvSge s = new IbvSge();
            s.setAddr(wr.sgeAddress(j));
            s.setLength(wr.sgeLength(j));
            s.setLkey(wr.sgeLkey(j));
            sges.add(s);
        }
        return sges;
    }

    /** {@code send_flags} for a request: {@code IBV_SEND_SIGNALED} and {@code IBV_SEND_SOLICITED} as it asks. */
    public static int sendFlags(boolean signaled, boolean solicited) {
        return (signaled ? IbvSendWR.IBV_SEND_SIGNALED : 0) | (solicited ? IbvSendWR.IBV_SEND_SOLICITED : 0);
    }

    /** The SPI status of an {@code ibv_wc_status} value ({@link WcStatusText#status}). */
    public static WcStatus status(int ibvStatus) {
        return WcStatusText.status(ibvStatus);
    }

    /** {@code IBV_WC_…} name of a status value, or its number when DiSNI does not know it. */
    public static String ibvStatusName(int ibvStatus) {
        return ibvStatus >= 0 && ibvStatus < IBV_STATUSES.length ? IBV_STATUSES[ibvStatus].name() : "ibv_wc_status " + ibvStatus;
    }

    /**
     * What an error status means for the request that got it ({@link WcStatusText#hint}). DiSNI copies no
     * {@code vendor_err} for failed completions, so the status is all the NIC tells.
     */
    public static String errorHint(int ibvStatus) {
        return WcStatusText.hint(ibvStatus);
    }

    /** {@code htonl}: immediate data is big-endian on the wire, and DiSNI writes it in native order. */
    public static int immToWire(int hostOrder) {
        return LITTLE_ENDIAN ? Integer.reverseBytes(hostOrder) : hostOrder;
    }

    /** {@code ntohl}: DiSNI reads {@code imm_data} in native order. */
    public static int immFromWire(int wireOrder) {
        return LITTLE_ENDIAN ? Integer.reverseBytes(wireOrder) : wireOrder;
    }
}
