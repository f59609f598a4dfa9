package io.reactorrdma.verbs.disni.calls;

import com.ibm.disni.util.MemBuf;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;

import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * The native request arrays behind DiSNI 2.1's built post calls, for the two fields DiSNI's
 * {@code …Mod} interfaces cannot change: a send's {@code imm_data} and a receive's SGEs.
 *
 * <p>{@code NatPostSendCall} and {@code NatPostRecvCall} serialise their requests, when built, into
 * one direct buffer (their private {@code MemBuf cmd}, native byte order) that {@code execute()}
 * passes to {@code ibv_post_send}/{@code ibv_post_recv} as is: {@code count} requests of
 * {@code struct ibv_send_wr} (72 bytes: wr_id 0, next 8, sg_list 16, num_sge 24, opcode 28,
 * send_flags 32, imm_data 36, wr.rdma 40) or {@code struct ibv_recv_wr} (32 bytes: wr_id 0, next 8,
 * sg_list 16, num_sge 24), then every request's {@code struct ibv_sge}s in order (16 bytes: addr 0,
 * length 8, lkey 12) (DiSNI's {@code NatIbvSendWR.writeBack}, {@code NatPostRecvCall.setWrList}).
 * Writing a field there is exactly what DiSNI's own setters do for the fields they cover.
 *
 * <p>Because this reaches into DiSNI's internals, a buffer is used only if it is found and its
 * contents match, field by field, the requests the call was built from ({@link #sendBuffer},
 * {@link #recvBuffer}); otherwise the caches fall back to keying by those fields (allocating, as
 * before) — a DiSNI with another layout is never written to.
 */
public final class CommandBuffers {

    static final int SEND_WR_SIZE = 72;
    static final int SEND_NUM_SGE = 24;
    static final int SEND_OPCODE = 28;
    static final int SEND_FLAGS = 32;
    static final int SEND_IMM = 36;
    static final int RECV_WR_SIZE = 32;
    static final int RECV_NUM_SGE = 24;
    static final int SGE_SIZE = 16;
    static final int SGE_LENGTH = 8;
    static final int SGE_LKEY = 12;

    private static final ClassValue<Field> CMD = new ClassValue<>() {
        @Override
        protected Field computeValue(Class<?> type) {
            for (Class<?> c = type; c != null; c = c.getSuperclass()) {
                try {
                    Field f = c.getDeclaredField("cmd");
                    if (f.getType() != MemBuf.class) {
                        return null;
                    }
                    f.setAccessible(true);
                    return f;
                } catch (NoSuchFieldException e) {
                    // look in the superclass
                } catch (RuntimeException e) {
                    return null; // not accessible: no patching
                }
            }
            return null;
        }
    };

    private CommandBuffers() {
    }

    /** The command buffer of a built call, or null when it has none that can be read. */
    static ByteBuffer of(Object call) {
        Field f = CMD.get(call.getClass());
        if (f == null) {
            return null;
        }
        try {
            MemBuf m = (MemBuf) f.get(call);
            ByteBuffer b = m == null ? null : m.getBuffer();
            return b != null && b.isDirect() && b.order() == ByteOrder.nativeOrder() ? b : null;
        } catch (IllegalAccessException | RuntimeException e) {
            return null;
        }
    }

    /** The command buffer of a post-send call built from {@code wrs}, if it holds exactly them in the layout above; else null. */
    static ByteBuffer sendBuffer(Object call, List<IbvSendWR> wrs) {
        ByteBuffer b = of(call);
        if (b == null) {
            return null;
        }
        int n = wrs.size();
        int sge = n * SEND_WR_SIZE;
        for (int i = 0; i < n; i++) {
            IbvSendWR w = wrs.get(i);
            int at = i * SEND_WR_SIZE;
            sge = sgesMatch(b, sge, w.getNum_sge(), w.getSg_list()); // first: bounds-checks the requests too
            if (sge < 0 || b.getLong(at) != w.getWr_id() || b.getInt(at + SEND_NUM_SGE) != w.getNum_sge()
                    || b.getInt(at + SEND_OPCODE) != w.getOpcode() || b.getInt(at + SEND_IMM) != w.getImm_data()) {
                return null;
            }
        }
        return b;
    }

    /** The command buffer of a post-receive call built from {@code wrs}, if it holds exactly them; else null. */
    static ByteBuffer recvBuffer(Object call, List<IbvRecvWR> wrs) {
        ByteBuffer b = of(call);
        if (b == null) {
            return null;
        }
        int n = wrs.size();
        int sge = n * RECV_WR_SIZE;
        for (int i = 0; i < n; i++) {
            IbvRecvWR w = wrs.get(i);
            int at = i * RECV_WR_SIZE;
            sge = sgesMatch(b, sge, w.getNum_sge(), w.getSg_list()); // first: bounds-checks the requests too
            if (sge < 0 || b.getLong(at) != w.getWr_id() || b.getInt(at + RECV_NUM_SGE) != w.getNum_sge()) {
                return null;
            }
        }
        return b;
    }

    /**
     * Whether one request's {@code numSge} SGEs, {@code sgl}, lie in {@code b} from {@code at} on;
     * the offset after them, or -1 when they do not fit or differ.
     */
    private static int sgesMatch(ByteBuffer b, int at, int numSge, List<IbvSge> sgl) {
        if (at + numSge * SGE_SIZE > b.capacity()) {
            return -1;
        }
        for (IbvSge s : sgl) {
            if (b.getLong(at) != s.getAddr() || b.getInt(at + SGE_LENGTH) != s.getLength() || b.getInt(at + SGE_LKEY) != s.getLkey()) {
                return -1;
            }
            at += SGE_SIZE;
        }
        return at;
    }

    /** Writes request {@code index}'s {@code imm_data} (already in wire order, as {@code IbvSendWR.setImm_data} takes it). */
    static void putImm(ByteBuffer b, int index, int immWire) {
        b.putInt(index * SEND_WR_SIZE + SEND_IMM, immWire);
    }

    /** Writes SGE {@code sgeIndex} (counted over the whole batch) of a receive batch of {@code count} requests. */
    static void putRecvSge(ByteBuffer b, int count, int sgeIndex, long addr, int length, int lkey) {
        int at = count * RECV_WR_SIZE + sgeIndex * SGE_SIZE;
        b.putLong(at, addr);
        b.putInt(at + SGE_LENGTH, length);
        b.putInt(at + SGE_LKEY, lkey);
    }
}
