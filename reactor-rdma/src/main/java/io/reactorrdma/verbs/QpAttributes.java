package io.reactorrdma.verbs;

import java.util.Objects;

/**
 * What an RC queue pair is created with: {@code ibv_qp_init_attr} (queues, depths, SGE limits) plus
 * the retry attributes set when it is connected ({@code rnr_retry}, {@code min_rnr_timer}).
 * Immutable; each {@code with…} returns a copy.
 */
public final class QpAttributes {

    /** Default send-queue depth: the engine's work-request chain length. */
    public static final int DEFAULT_SEND_DEPTH = 32;
    /** Default receive-queue depth. */
    public static final int DEFAULT_RECV_DEPTH = 32;
    /** Default SGE limit per request. */
    public static final int DEFAULT_MAX_SGE = 4;
    /** RNR retry count 7 means "retry forever", as in the InfiniBand specification. */
    public static final int RNR_RETRY_INFINITE = 7;
    /** Default RNR retry count: bounded, so a peer that never posts receives is reported. */
    public static final int DEFAULT_RNR_RETRY = 6;
    /** Default delay between RNR retries, in microseconds (min_rnr_timer 14 = 1.28 ms on hardware; rounded). */
    public static final int DEFAULT_RNR_DELAY_MICROS = 1000;
    /** Default RDMA READs a queue pair may have outstanding ({@code max_rd_atomic}, rdma_cm's initiator depth). */
    public static final int DEFAULT_MAX_RD_ATOMIC = 4;

    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final int maxSendWr;
    private final int maxRecvWr;
    private final int maxSendSge;
    private final int maxRecvSge;
    private final int rnrRetry;
    private final int rnrDelayMicros;
    private final int maxRdAtomic;

    private QpAttributes(CompletionQueue sendCq, CompletionQueue recvCq, int maxSendWr, int maxRecvWr,
                         int maxSendSge, int maxRecvSge, int rnrRetry, int rnrDelayMicros, int maxRdAtomic) {
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.maxSendWr = maxSendWr;
        this.maxRecvWr = maxRecvWr;
        this.maxSendSge = maxSendSge;
        this.maxRecvSge = maxRecvSge;
        this.rnrRetry = rnrRetry;
        this.rnrDelayMicros = rnrDelayMicros;
        this.maxRdAtomic = maxRdAtomic;
    }

    /** Attributes with both queues completing on {@code cq} and default depths. */
    public static QpAttributes create(CompletionQueue cq) {
        return create(cq, cq);
    }

    /** Attributes with the given send and receive completion queues and default depths. */
    public static QpAttributes create(CompletionQueue sendCq, CompletionQueue recvCq) {
        return new QpAttributes(Objects.requireNonNull(sendCq, "sendCq"), Objects.requireNonNull(recvCq, "recvCq"),
                DEFAULT_SEND_DEPTH, DEFAULT_RECV_DEPTH, DEFAULT_MAX_SGE, DEFAULT_MAX_SGE,
                DEFAULT_RNR_RETRY, DEFAULT_RNR_DELAY_MICROS, DEFAULT_MAX_RD_ATOMIC);
    }

    public QpAttributes withMaxSendWr(int maxSendWr) {
        return new QpAttributes(sendCq, recvCq, positive("maxSendWr", maxSendWr), maxRecvWr, maxSendSge, maxRecvSge, rnrRetry,
                rnrDelayMicros, maxRdAtomic);
    }

    public QpAttributes withMaxRecvWr(int maxRecvWr) {
        return new QpAttributes(sendCq, recvCq, maxSendWr, positive("maxRecvWr", maxRecvWr), maxSendSge, maxRecvSge, rnrRetry,
                rnrDelayMicros, maxRdAtomic);
    }

    public QpAttributes withMaxSendSge(int maxSendSge) {
        return new QpAttributes(sendCq, recvCq, maxSendWr, maxRecvWr, positive("maxSendSge", maxSendSge), maxRecvSge, rnrRetry,
                rnrDelayMicros, maxRdAtomic);
    }

    public QpAttributes withMaxRecvSge(int maxRecvSge) {
        return new QpAttributes(sendCq, recvCq, maxSendWr, maxRecvWr, maxSendSge, positive("maxRecvSge", maxRecvSge), rnrRetry,
                rnrDelayMicros, maxRdAtomic);
    }

    /**
     * RNR retry count 0..7 (7 retries forever) of <b>this</b> queue pair's sends: how often a SEND
     * (or WRITE with immediate) of this queue pair is retried while the <em>peer</em> has no receive
     * posted, before it completes with {@code RNR_RETRY_EXC_ERR}. In verbs it is this QP's
     * {@code rnr_retry}; rdma_cm sets it from the peer's {@code rdma_conn_param.rnr_retry_count}, so
     * a provider connecting through rdma_cm passes it to the peer to hand back (the disni provider does
     * so in its handshake). The transport retry count ({@code retry_count}, lost packets) is not
     * per queue pair: see the provider's configuration (disni: the connecting side's value configures
     * both queue pairs).
     */
    public QpAttributes withRnrRetry(int rnrRetry) {
        if (rnrRetry < 0 || rnrRetry > 7) {
            throw new IllegalArgumentException("rnrRetry must be 0..7 (7 = infinite), got " + rnrRetry);
        }
        return new QpAttributes(sendCq, recvCq, maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, rnrRetry, rnrDelayMicros, maxRdAtomic);
    }

    /**
     * Delay between this queue pair's RNR retries, in microseconds. On hardware the delay is the
     * receiving side's {@code min_rnr_timer} (rounded to its code), sent in its RNR NAK; rdma_cm
     * offers no way to set it from user space, so the disni provider leaves rdma_cm's default and
     * only the soft provider honours this value exactly.
     */
    public QpAttributes withRnrDelayMicros(int rnrDelayMicros) {
        return new QpAttributes(sendCq, recvCq, maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, rnrRetry,
                positive("rnrDelayMicros", rnrDelayMicros), maxRdAtomic);
    }

    /**
     * RDMA READs this queue pair may have outstanding at once: verbs' {@code max_rd_atomic}, which
     * rdma_cm sets from the connection's {@code initiator_depth} (bounded by the peer's
     * {@code responder_resources} and the device's {@code max_qp_rd_atom}); 1..255, default
     * {@value #DEFAULT_MAX_RD_ATOMIC}. An RNIC does not refuse more: it stalls the send queue behind the
     * excess READs until earlier ones complete. The soft provider in strict mode refuses such a post
     * instead (nothing posted), so an engine that would stall finds out in its tests; DiSNI 2.1 cannot
     * pass the value to rdma_cm (its native connect and accept use the device's maximum), see
     * docs/HARDWARE.md.
     */
    public QpAttributes withMaxRdAtomic(int maxRdAtomic) {
        if (maxRdAtomic < 1 || maxRdAtomic > 255) {
            throw new IllegalArgumentException("maxRdAtomic must be 1..255 (ibv max_rd_atomic is a byte), got " + maxRdAtomic);
        }
        return new QpAttributes(sendCq, recvCq, maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, rnrRetry, rnrDelayMicros, maxRdAtomic);
    }

    public CompletionQueue sendCq() {
        return sendCq;
    }

    public CompletionQueue recvCq() {
        return recvCq;
    }

    public int maxSendWr() {
        return maxSendWr;
    }

    public int maxRecvWr() {
        return maxRecvWr;
    }

    public int maxSendSge() {
        return maxSendSge;
    }

    public int maxRecvSge() {
        return maxRecvSge;
    }

    /** RNR retries of this queue pair's sends ({@link #withRnrRetry}). */
    public int rnrRetry() {
        return rnrRetry;
    }

    /** Delay between this queue pair's RNR retries ({@link #withRnrDelayMicros}). */
    public int rnrDelayMicros() {
        return rnrDelayMicros;
    }

    /** RDMA READs outstanding at most ({@link #withMaxRdAtomic}). */
    public int maxRdAtomic() {
        return maxRdAtomic;
    }

    private static int positive(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, got " + value);
        }
        return value;
    }

    @Override
    public String toString() {
        return "QpAttributes{maxSendWr=" + maxSendWr + ", maxRecvWr=" + maxRecvWr + ", maxSendSge=" + maxSendSge
                + ", maxRecvSge=" + maxRecvSge + ", rnrRetry=" + rnrRetry + ", rnrDelayMicros=" + rnrDelayMicros
                + ", maxRdAtomic=" + maxRdAtomic + "}";
    }
}
