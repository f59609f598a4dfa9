package io.reactorrdma.verbs.ffm.rdmacore;

import io.reactorrdma.verbs.ffm.abi.AttributeLayouts;
import io.reactorrdma.verbs.ffm.abi.Offsets;
import io.reactorrdma.verbs.ffm.abi.ResourceLayouts;
import io.reactorrdma.verbs.ffm.abi.VerbsConstants;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A protection domain ({@code struct ibv_pd}): registers memory. Not thread-safe; close once, after its regions. */
public final class RdmaPd implements AutoCloseable {

    private static final long LKEY = Offsets.of(ResourceLayouts.IBV_MR, "lkey");
    private static final long RKEY = Offsets.of(ResourceLayouts.IBV_MR, "rkey");
    private static final int REMOTE = VerbsConstants.IBV_ACCESS_REMOTE_WRITE | VerbsConstants.IBV_ACCESS_REMOTE_READ;

    private final RdmaDevice owner;
    private final Libibverbs lib;
    private final String device;
    private final MemorySegment pd;
    private boolean closed;

    RdmaPd(RdmaDevice owner, Libibverbs lib, MemorySegment pd) {
        this.owner = owner;
        this.lib = lib;
        this.device = owner.name();
        this.pd = pd;
    }

    /**
     * Creates a reliable-connected queue pair in this domain ({@code ibv_create_qp}), in RESET; {@code sendCq} and
     * {@code recvCq} may be one queue.
     *
     * @throws RdmaCoreUnavailableException when the device refuses the capacities (EINVAL) or runs out (ENOMEM)
     */
    public RdmaQp createQp(RdmaCq sendCq, RdmaCq recvCq, QpCapacities caps) {
        if (closed) {
            throw new IllegalStateException("protection domain of " + device + " is closed");
        }
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = initAttr(call, sendCq, recvCq, caps);
            MemorySegment state = Libibverbs.callState(call);
            MemorySegment qp = (MemorySegment) lib.createQp.invokeExact(state, pd, attr);
            if (qp.address() == 0) {
                int errno = Libibverbs.errno(state);
                throw new RdmaCoreUnavailableException("ibv_create_qp(" + device + ", " + caps + ") failed with "
                        + Errno.name(errno) + (errno == Errno.EINVAL
                        ? ": the device supports less (see capabilities(): max_qp_wr, max_sge), or a CQ is missing"
                        : ": the device or the memlock limit ran out"));
            }
            return new RdmaQp(owner, lib, qp.reinterpret(ResourceLayouts.IBV_QP.byteSize()), null);
        } catch (RdmaCoreUnavailableException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling ibv_create_qp failed", t);
        }
    }

    /** The {@code struct ibv_pd}, for the connection manager's {@code rdma_create_qp}. */
    public MemorySegment segment() {
        return pd;
    }

    public RdmaDevice device() {
        return owner;
    }

    /** A {@code struct ibv_qp_init_attr} for an RC queue pair. */
    public static MemorySegment initAttr(Arena arena, RdmaCq sendCq, RdmaCq recvCq, QpCapacities caps) {
        MemorySegment attr = arena.allocate(AttributeLayouts.IBV_QP_INIT_ATTR);
        attr.set(ValueLayout.ADDRESS, init("send_cq"), sendCq.segment());
        attr.set(ValueLayout.ADDRESS, init("recv_cq"), recvCq.segment());
        attr.set(ValueLayout.JAVA_INT, init("cap", "max_send_wr"), caps.maxSendWr());
        attr.set(ValueLayout.JAVA_INT, init("cap", "max_recv_wr"), caps.maxRecvWr());
        attr.set(ValueLayout.JAVA_INT, init("cap", "max_send_sge"), caps.maxSendSge());
        attr.set(ValueLayout.JAVA_INT, init("cap", "max_recv_sge"), caps.maxRecvSge());
        attr.set(ValueLayout.JAVA_INT, init("cap", "max_inline_data"), caps.maxInlineData());
        attr.set(ValueLayout.JAVA_INT, init("qp_type"), VerbsConstants.IBV_QPT_RC);
        return attr;
    }

    private static long init(String... path) {
        return Offsets.of(AttributeLayouts.IBV_QP_INIT_ATTR, path);
    }

    /**
     * Registers {@code memory} with {@code access} ({@code IBV_ACCESS_*} flags; {@code ibv_reg_mr}). The memory must
     * stay allocated until the region is closed.
     *
     * @throws RdmaCoreUnavailableException when rdma-core refuses: ENOMEM names the memlock limit, EINVAL the flags
     */
    public RdmaMr register(MemorySegment memory, int access) {
        if (closed) {
            throw new IllegalStateException("protection domain of " + device + " is closed");
        }
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = Libibverbs.callState(call);
            MemorySegment mr = (MemorySegment) lib.regMr.invokeExact(state, pd, memory, memory.byteSize(), access);
            if (mr.address() == 0) {
                int errno = Libibverbs.errno(state);
                throw new RdmaCoreUnavailableException("ibv_reg_mr(" + device + ", " + memory.byteSize() + " bytes) failed with "
                        + Errno.name(errno) + (errno == Errno.ENOMEM
                        ? ": registered memory is pinned, and this process may pin no more: raise the memlock limit (ulimit -l;"
                                + " limits.conf memlock, systemd LimitMEMLOCK=infinity, docker --ulimit memlock=-1)"
                        : errno == Errno.EINVAL && (access & REMOTE) != 0
                        ? ": remote write access needs local write access too (IBV_ACCESS_LOCAL_WRITE)"
                        : ": check the memory and access flags " + access));
            }
            mr = mr.reinterpret(ResourceLayouts.IBV_MR.byteSize());
            return new RdmaMr(lib, device, mr, memory.address(), memory.byteSize(), mr.get(ValueLayout.JAVA_INT, LKEY),
                    mr.get(ValueLayout.JAVA_INT, RKEY));
        } catch (RdmaCoreUnavailableException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling ibv_reg_mr failed", t);
        }
    }

    /** Deallocates the domain ({@code ibv_dealloc_pd}); later calls do nothing. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            NativeCalls.destroy(lib.deallocPd, pd, "ibv_dealloc_pd", device, "regions or queue pairs of the domain are still open");
        }
    }
}
