package io.reactorrdma.verbs.disni.calls;

import com.ibm.disni.util.MemBuf;
import com.ibm.disni.util.MemoryAllocation;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;
import com.ibm.disni.verbs.SVCReqNotify;
import com.ibm.disni.verbs.impl.NatIbvCQ;
import com.ibm.disni.verbs.impl.NatPostRecvCall;
import com.ibm.disni.verbs.impl.NatPostSendCall;
import com.ibm.disni.verbs.impl.NatReqNotifyCall;

import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * DiSNI 2.1's real post calls ({@code NatPostSendCall}, {@code NatPostRecvCall}) without libdisni:
 * they serialise their requests into a command buffer exactly as on hardware, and only
 * {@code execute()} — the JNI call — is replaced by one that does nothing. DiSNI's
 * {@code MemoryAllocation} would take the buffer's address through {@code sun.nio.ch.DirectBuffer}
 * (not exported to tests), so its free list is stocked beforehand with buffers made here.
 */
public final class NativeCalls {

    private NativeCalls() {
    }

    static final class SilentPostSend extends NatPostSendCall {
        SilentPostSend(List<IbvSendWR> wrs) {
            super(null, null, stocked(), null, wrs);
        }

        @Override
        public SVCPostSend execute() {
            return this;
        }
    }

    static final class SilentPostRecv extends NatPostRecvCall {
        SilentPostRecv(List<IbvRecvWR> wrs) {
            super(null, null, stocked(), null, wrs);
        }

        @Override
        public SVCPostRecv execute() {
            return this;
        }
    }

    /** DiSNI's real {@code ibv_req_notify_cq} call, built for {@code solicitedOnly}; execute() counts instead of calling JNI. */
    static final class SilentReqNotify extends NatReqNotifyCall {
        int executions;

        SilentReqNotify(boolean solicitedOnly) {
            super(null, null, cq(), solicitedOnly);
        }

        @Override
        public SVCReqNotify execute() {
            if (!isValid()) {
                throw new IllegalStateException("executed after free");
            }
            executions++;
            return this;
        }

        /** The {@code solicited_only} argument this call passes to {@code ibv_req_notify_cq}, as DiSNI stored it. */
        int solicitedOnlyArgument() {
            try {
                Field f = NatReqNotifyCall.class.getDeclaredField("solicited");
                f.setAccessible(true);
                return f.getInt(this);
            } catch (ReflectiveOperationException e) {
                throw new AssertionError("DiSNI 2.1's NatReqNotifyCall changed: " + e, e);
            }
        }
    }

    /** A {@code NatIbvCQ} without its constructor (which opens the native provider); only its type is used. */
    static NatIbvCQ cq() {
        try {
            return (NatIbvCQ) unsafe().getClass().getMethod("allocateInstance", Class.class).invoke(unsafe(), NatIbvCQ.class);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static Object unsafe() throws ReflectiveOperationException {
        Field theUnsafe = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
        theUnsafe.setAccessible(true);
        return theUnsafe.get(null);
    }

    /** DiSNI's allocator with a free buffer of every power-of-two size from 64 B to 64 KiB. */
    static MemoryAllocation stocked() {
        MemoryAllocation a = MemoryAllocation.getInstance();
        try {
            Field tableField = MemoryAllocation.class.getDeclaredField("table");
            tableField.setAccessible(true);
            @SuppressWarnings("unchecked")
            ConcurrentSkipListMap<Integer, MemBuf> table = (ConcurrentSkipListMap<Integer, MemBuf>) tableField.get(a);
            for (int size = 64; size <= 1 << 16; size <<= 1) {
                if (!table.containsKey(size)) {
                    table.put(size, memBuf(a, size));
                }
            }
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("DiSNI 2.1's MemoryAllocation changed: " + e, e);
        }
        return a;
    }

    private static MemBuf memBuf(MemoryAllocation owner, int size) throws ReflectiveOperationException {
        Field theUnsafe = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
        theUnsafe.setAccessible(true);
        Object unsafe = theUnsafe.get(null);
        MemBuf m = (MemBuf) unsafe.getClass().getMethod("allocateInstance", Class.class).invoke(unsafe, MemBuf.class);
        set(m, "buffer", ByteBuffer.allocateDirect(size).order(ByteOrder.nativeOrder()));
        set(m, "address", 0x7f00_0000_0000L + size); // only used to shift the chain's pointers
        set(m, "memAlloc", owner);
        return m;
    }

    private static void set(Object o, String field, Object value) throws ReflectiveOperationException {
        Field f = o.getClass().getDeclaredField(field);
        f.setAccessible(true);
        f.set(o, value);
    }
}
