package io.reactorrdma.verbs.work.tracking;

import io.reactorrdma.verbs.work.WcStatus;

/**
 * Words for an {@code ibv_wc_status} value in an error detail: its name as verbs.h spells it, and what
 * it means for the request that got it. Pure values, shared by the hardware providers.
 */
public final class WcStatusText {

    /** {@code enum ibv_wc_status} of verbs.h, by value. */
    private static final String[] NAMES = {"IBV_WC_SUCCESS", "IBV_WC_LOC_LEN_ERR", "IBV_WC_LOC_QP_OP_ERR",
        "IBV_WC_LOC_EEC_OP_ERR", "IBV_WC_LOC_PROT_ERR", "IBV_WC_WR_FLUSH_ERR", "IBV_WC_MW_BIND_ERR", "IBV_WC_BAD_RESP_ERR",
        "IBV_WC_LOC_ACCESS_ERR", "IBV_WC_REM_INV_REQ_ERR", "IBV_WC_REM_ACCESS_ERR", "IBV_WC_REM_OP_ERR",
        "IBV_WC_RETRY_EXC_ERR", "IBV_WC_RNR_RETRY_EXC_ERR", "IBV_WC_LOC_RDD_VIOL_ERR", "IBV_WC_REM_INV_RD_REQ_ERR",
        "IBV_WC_REM_ABORT_ERR", "IBV_WC_INV_EECN_ERR", "IBV_WC_INV_EEC_STATE_ERR", "IBV_WC_FATAL_ERR",
        "IBV_WC_RESP_TIMEOUT_ERR", "IBV_WC_GENERAL_ERR", "IBV_WC_TM_ERR", "IBV_WC_TM_RNDV_INCOMPLETE"};

    private WcStatusText() {
    }

    /**
     * The SPI status of an {@code ibv_wc_status} value. Statuses an RC queue pair without atomics
     * does not list in the SPI (BAD_RESP, LOC_ACCESS, REM_ABORT, FATAL, RESP_TIMEOUT, ...) become
     * {@link WcStatus#GENERAL_ERR}; {@link #name} keeps the original for the error detail.
     */
    public static WcStatus status(int ibvStatus) {
        WcStatus s = WcStatus.fromIbv(ibvStatus);
        return s != null ? s : WcStatus.GENERAL_ERR;
    }

    /** The {@code IBV_WC_...} name of a status value, or its number when verbs.h has none. */
    public static String name(int ibvStatus) {
        return ibvStatus >= 0 && ibvStatus < NAMES.length ? NAMES[ibvStatus] : "ibv_wc_status " + ibvStatus;
    }

    /** What an error status means for the request that got it, for {@code WorkCompletion.errorDetail}. */
    public static String hint(int ibvStatus) {
        WcStatus s = WcStatus.fromIbv(ibvStatus);
        if (s == WcStatus.LOC_PROT_ERR) {
            return "a local scatter/gather entry lies outside its registered region, names an unknown lkey, or lacks LOCAL_WRITE";
        }
        if (s != null) {
            return s.description();
        }
        return "a status the SPI does not list (reported as GENERAL_ERR)";
    }
}
