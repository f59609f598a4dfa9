package io.reactorrdma.verbs.work.tracking;

/**
 * The {@code wr_id} the provider gives the NIC instead of the caller's: it names the queue pair
 * (index and generation in the context's {@link QpTable}), whether the request is a send, and for
 * sends its slot in the send ring. Of a failed completion only {@code wr_id} and the status can be
 * relied on (DiSNI drops {@code qp_num}; ibv_poll_cq(3) leaves opcode and length undefined), so only the
 * token can tell which queue pair and which request a failed completion belongs to; the slot lets a
 * signaled completion retire every unsignaled request before it.
 *
 * <pre>
 *  63   62 ......... 48 47 .......... 24 23 ........ 0
 * +----+--------------+----------------+-------------+
 * |send| generation 15| queue pair idx | send slot   |
 * +----+--------------+----------------+-------------+
 * </pre>
 */
public final class WrTokens {

    static final int MAX_QPS = 1 << 24;
    static final int MAX_SLOTS = 1 << 24;
    static final int GENERATION_MASK = (1 << 15) - 1;
    private static final long SEND_BIT = 1L << 63;

    private WrTokens() {
    }

    static long send(int qpIndex, int generation, int slot) {
        return SEND_BIT | base(qpIndex, generation) | slot;
    }

    static long recv(int qpIndex, int generation) {
        return base(qpIndex, generation);
    }

    private static long base(int qpIndex, int generation) {
        return ((long) (generation & GENERATION_MASK) << 48) | ((long) qpIndex << 24);
    }

    static boolean isSend(long token) {
        return token < 0;
    }

    static int qpIndex(long token) {
        return (int) (token >>> 24) & (MAX_QPS - 1);
    }

    static int generation(long token) {
        return (int) (token >>> 48) & GENERATION_MASK;
    }

    static int slot(long token) {
        return (int) token & (MAX_SLOTS - 1);
    }
}
