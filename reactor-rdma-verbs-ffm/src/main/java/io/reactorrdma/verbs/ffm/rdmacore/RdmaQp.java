package io.reactorrdma.verbs.ffm.rdmacore;

import io.reactorrdma.verbs.ffm.abi.AttributeLayouts;
import io.reactorrdma.verbs.ffm.abi.Offsets;
import io.reactorrdma.verbs.ffm.abi.ResourceLayouts;
import io.reactorrdma.verbs.ffm.abi.VerbsConstants;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * A reliable-connected queue pair ({@code struct ibv_qp}): its state transitions ({@code ibv_modify_qp}) and its data
 * path ({@link #postSend}, {@link #postRecv}, called through the device's operation table without allocating).
 * Posting, sends and receives alike, is single-threaded per queue pair; close once.
 */
public final class RdmaQp implements AutoCloseable {

    private static final StructLayout ATTR = AttributeLayouts.IBV_QP_ATTR;
    private static final long QP_NUM = Offsets.of(ResourceLayouts.IBV_QP, "qp_num");
    private static final long STATE = Offsets.of(ResourceLayouts.IBV_QP, "state");

    private final RdmaDevice device;
    private final Libibverbs lib;
    private final MemorySegment qp;
    private final Arena arena = Arena.ofShared();
    /** Where post_send / post_recv say which request they refused. */
    private final MemorySegment badWr = arena.allocate(ValueLayout.ADDRESS);
    private boolean closed;

    /** How it is destroyed when not by {@code ibv_destroy_qp}: {@code rdma_destroy_qp} for a CM id's queue pair. */
    private final Runnable destroyer;

    /** A queue pair rdma-core created ({@code ibv_create_qp}, or {@code rdma_create_qp} with its own destroyer). */
    public RdmaQp(RdmaDevice device, Libibverbs lib, MemorySegment qp, Runnable destroyer) {
        this.device = device;
        this.lib = lib;
        this.qp = qp;
        this.destroyer = destroyer;
    }

    /** Its number, which the peer names as its destination. */
    public int qpNum() {
        return qp.get(ValueLayout.JAVA_INT, QP_NUM);
    }

    /** Its state as the library last recorded it ({@code enum ibv_qp_state}). */
    public int state() {
        return qp.get(ValueLayout.JAVA_INT, STATE);
    }

    /** RESET to INIT on port 1: what remote peers may do to its memory ({@code IBV_ACCESS_*}). */
    public void toInit(int access) {
        modify(VerbsConstants.IBV_QPS_INIT, VerbsConstants.IBV_QP_STATE | VerbsConstants.IBV_QP_PKEY_INDEX
                | VerbsConstants.IBV_QP_PORT | VerbsConstants.IBV_QP_ACCESS_FLAGS, attr -> {
                    attr.set(ValueLayout.JAVA_BYTE, offset("port_num"), (byte) 1);
                    attr.set(ValueLayout.JAVA_INT, offset("qp_access_flags"), access);
                });
    }

    /**
     * INIT to RTR (ready to receive) towards the peer queue pair {@code destQpNum}, at {@code pathMtu}
     * ({@code IBV_MTU_*}), accepting up to {@code maxDestRdAtomic} READs of the peer at once.
     */
    public void toRtr(int destQpNum, int pathMtu, int maxDestRdAtomic) {
        modify(VerbsConstants.IBV_QPS_RTR, VerbsConstants.IBV_QP_STATE | VerbsConstants.IBV_QP_AV
                | VerbsConstants.IBV_QP_PATH_MTU | VerbsConstants.IBV_QP_DEST_QPN | VerbsConstants.IBV_QP_RQ_PSN
                | VerbsConstants.IBV_QP_MAX_DEST_RD_ATOMIC | VerbsConstants.IBV_QP_MIN_RNR_TIMER, attr -> {
                    attr.set(ValueLayout.JAVA_INT, offset("path_mtu"), pathMtu);
                    attr.set(ValueLayout.JAVA_INT, offset("dest_qp_num"), destQpNum);
                    attr.set(ValueLayout.JAVA_BYTE, offset("max_dest_rd_atomic"), (byte) maxDestRdAtomic);
                    attr.set(ValueLayout.JAVA_BYTE, offset("min_rnr_timer"), (byte) 12);
                    attr.set(ValueLayout.JAVA_BYTE, offset("ah_attr", "port_num"), (byte) 1);
                });
    }

    /** RTR to RTS (ready to send), with up to {@code maxRdAtomic} of its own READs outstanding; RNR retried forever. */
    public void toRts(int maxRdAtomic) {
        toRts(maxRdAtomic, 7);
    }

    /** As {@link #toRts(int)}, retrying a send the peer has no receive for {@code rnrRetry} times (0..7, 7: forever). */
    public void toRts(int maxRdAtomic, int rnrRetry) {
        modify(VerbsConstants.IBV_QPS_RTS, VerbsConstants.IBV_QP_STATE | VerbsConstants.IBV_QP_TIMEOUT
                | VerbsConstants.IBV_QP_RETRY_CNT | VerbsConstants.IBV_QP_RNR_RETRY | VerbsConstants.IBV_QP_SQ_PSN
                | VerbsConstants.IBV_QP_MAX_QP_RD_ATOMIC, attr -> {
                    attr.set(ValueLayout.JAVA_BYTE, offset("timeout"), (byte) 14);
                    attr.set(ValueLayout.JAVA_BYTE, offset("retry_cnt"), (byte) 7);
                    attr.set(ValueLayout.JAVA_BYTE, offset("rnr_retry"), (byte) rnrRetry);
                    attr.set(ValueLayout.JAVA_BYTE, offset("max_rd_atomic"), (byte) maxRdAtomic);
                });
    }

    /** To ERR: outstanding work completes flushed. */
    public void toError() {
        modify(VerbsConstants.IBV_QPS_ERR, VerbsConstants.IBV_QP_STATE, attr -> { });
    }

    /**
     * Posts requests 0..n-1 of {@code chain} ({@code ibv_post_send}).
     *
     * @throws IllegalStateException naming the request refused and why
     */
    public void postSend(SendWrChain chain, int n) {
        int rc;
        try {
            badWr.set(ValueLayout.JAVA_LONG, 0, 0L); // so a refusal names the request the device set, not an older one
            rc = (int) device.postSend.invokeExact(qp, chain.link(n), badWr);
        } catch (Throwable t) {
            throw new IllegalStateException("calling post_send failed", t);
        }
        if (rc != 0) {
            int bad = chain.indexOf(badWr.get(ValueLayout.JAVA_LONG, 0));
            throw new IllegalStateException("post_send(" + device.name() + ", qp " + qpNum() + ") refused request " + bad
                    + " of " + n + " with " + Errno.name(rc) + ": the queue pair is not ready to send (RTS), or the request"
                    + " exceeds its capacities (SGEs, inline bytes, outstanding requests)");
        }
    }

    /**
     * Posts receives 0..n-1 of {@code chain} ({@code ibv_post_recv}).
     *
     * @throws IllegalStateException naming the receive refused and why
     */
    public void postRecv(RecvWrChain chain, int n) {
        int rc;
        try {
            badWr.set(ValueLayout.JAVA_LONG, 0, 0L);
            rc = (int) device.postRecv.invokeExact(qp, chain.link(n), badWr);
        } catch (Throwable t) {
            throw new IllegalStateException("calling post_recv failed", t);
        }
        if (rc != 0) {
            int bad = chain.indexOf(badWr.get(ValueLayout.JAVA_LONG, 0));
            throw new IllegalStateException("post_recv(" + device.name() + ", qp " + qpNum() + ") refused receive " + bad
                    + " of " + n + " with " + Errno.name(rc) + (rc == Errno.ENOMEM
                    ? ": the receive queue is full" : ": the queue pair is in RESET, or a receive has too many SGEs"));
        }
    }

    /** Destroys the queue pair ({@code ibv_destroy_qp}); later calls do nothing. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            try {
                if (destroyer != null) {
                    destroyer.run();
                } else {
                    NativeCalls.destroy(lib.destroyQp, qp, "ibv_destroy_qp", device.name(), "the device refused to destroy it");
                }
            } finally {
                arena.close();
            }
        }
    }

    private interface AttrSetter {
        void set(MemorySegment attr);
    }

    private void modify(int toState, int mask, AttrSetter fields) {
        if (closed) {
            throw new IllegalStateException("queue pair " + qpNum() + " of " + device.name() + " is destroyed");
        }
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = call.allocate(ATTR);
            attr.set(ValueLayout.JAVA_INT, offset("qp_state"), toState);
            fields.set(attr);
            int rc = (int) lib.modifyQp.invokeExact(qp, attr, mask);
            if (rc != 0) {
                throw new IllegalStateException("ibv_modify_qp(" + device.name() + ", qp " + qpNum() + ") to state " + toState
                        + " from " + state() + " failed with " + Errno.name(rc)
                        + ": RC queue pairs go RESET, INIT, RTR, RTS in that order (any state may go to ERR)");
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling ibv_modify_qp failed", t);
        }
    }

    private static long offset(String... path) {
        return Offsets.of(ATTR, path);
    }
}
