package io.reactorrdma.verbs.soft.shared;

/**
 * The byte layout of a soft completion queue's ring of send completions (a direct buffer on
 * loopback, the file {@code <context>.cq<n>} on shm). Receive completions are not copied here:
 * they are written by the peer in place, into the receive-queue slots of {@link QpLayout}, and the
 * completion queue polls those too.
 *
 * <p>Many producers (every queue pair whose send queue completes here, and the provider's retry
 * thread), one consumer (the poller). A producer claims a slot with an atomic add on the tail,
 * fills it, and publishes it by writing its sequence number; the consumer reads slots in order.
 * The ring never overflows: a completion queue refuses queue pairs whose send-queue depths add up
 * to more than its capacity, and every send-queue slot has at most one completion in flight.
 *
 * <pre>
 * Header, 128 bytes:
 *   0  long tail     producers: claimed completions (getAndAdd)
 *  64  long head     consumer: polled completions (informational; the consumer keeps its own copy)
 * Entry i (of capacity), 64 bytes:
 *   0  long seq      claim + 1, written last (release)
 *   8  long wrId
 *  16  long sqIndex  the send-queue position the completion retires
 *  24  int  qpn
 *  28  int  status   (WcStatus.ibv)
 *  32  int  opcode   (WcOpcode.ibv)
 *  36  int  byteLen
 * </pre>
 */
public final class CqLayout {

    public static final int H_TAIL = 0;
    public static final int H_HEAD = 64;
    static final int HEADER_SIZE = 128;

    static final int ENTRY_SIZE = 64;
    public static final int E_SEQ = 0;
    public static final int E_WR_ID = 8;
    public static final int E_SQ_INDEX = 16;
    public static final int E_QPN = 24;
    public static final int E_STATUS = 28;
    public static final int E_OPCODE = 32;
    public static final int E_BYTE_LEN = 36;

    private CqLayout() {
    }

    public static int size(int capacity) {
        return HEADER_SIZE + capacity * ENTRY_SIZE;
    }

    public static int entryOffset(long index, int capacity) {
        return HEADER_SIZE + (int) (index % capacity) * ENTRY_SIZE;
    }
}
