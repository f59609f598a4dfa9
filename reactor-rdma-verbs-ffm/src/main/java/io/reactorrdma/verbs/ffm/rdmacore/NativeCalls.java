package io.reactorrdma.verbs.ffm.rdmacore;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/** What the verbs objects share around their downcalls: destroying one, and linking work requests into a chain. */
public final class NativeCalls {

    private NativeCalls() {
    }

    /**
     * Calls {@code destroy(object)}, an rdma-core function that returns 0 or an errno ({@code ibv_dereg_mr},
     * {@code ibv_destroy_cq}, ...).
     *
     * @throws IllegalStateException with {@code whyNonZero} when it refuses
     */
    public static void destroy(MethodHandle destroy, MemorySegment object, String call, String device, String whyNonZero) {
        int rc;
        try {
            rc = (int) destroy.invokeExact(object);
        } catch (Throwable t) {
            throw new IllegalStateException("calling " + call + " failed", t);
        }
        if (rc != 0) {
            throw new IllegalStateException(call + "(" + device + ") failed with " + Errno.name(rc) + ": " + whyNonZero);
        }
    }

    /**
     * Links requests 0..n-1 of an array of work requests ({@code struct ibv_send_wr} or {@code ibv_recv_wr}, each
     * {@code size} bytes, their {@code next} pointer at {@code nextOffset}) and returns the array, for a post. The
     * pointers are written as longs (LP64): no segment object per post.
     */
    static MemorySegment link(MemorySegment wrs, long size, long nextOffset, int n, int capacity) {
        if (n < 1 || n > capacity) {
            throw new IllegalArgumentException("posting " + n + " work requests of a chain of " + capacity);
        }
        for (int i = 0; i < n; i++) {
            wrs.set(ValueLayout.JAVA_LONG, i * size + nextOffset, i + 1 < n ? wrs.address() + (i + 1) * size : 0L);
        }
        return wrs;
    }
}
