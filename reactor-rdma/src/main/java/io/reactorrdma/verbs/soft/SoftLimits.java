package io.reactorrdma.verbs.soft;

/**
 * The soft provider's fixed limits, as an RNIC reports its device attributes: what no setting
 * raises. {@link SoftContext#capabilities()} reports them through the verbs SPI.
 */
public final class SoftLimits {

    /** Largest region: a Java buffer is indexed by int; 1 GiB keeps offsets comfortably in range. */
    public static final int MAX_REGION_SIZE = 1 << 30;

    /** Largest message of one work request (hardware ports allow 2 GiB; our regions stop at 1 GiB). */
    public static final int MAX_MESSAGE_SIZE = 1 << 30;

    /** Deepest queue. */
    public static final int MAX_QP_WR = 16384;

    /** Most scatter/gather entries per request. */
    public static final int MAX_SGE = 16;

    /** Largest completion queue. */
    public static final int MAX_CQE = 1 << 20;

    /**
     * Private-data limits of InfiniBand CM, which librdmacm enforces for RC: 56 bytes with a
     * connect, 196 with an accept, 148 with a reject. The soft provider enforces the same, so
     * code tested here fits hardware.
     */
    public static final int MAX_CONNECT_PRIVATE_DATA = 56;
    public static final int MAX_ACCEPT_PRIVATE_DATA = 196;
    public static final int MAX_REJECT_PRIVATE_DATA = 148;

    private SoftLimits() {
    }
}
