package io.reactorrdma.verbs.ffm.rdmacore;

import io.reactorrdma.verbs.ffm.abi.ResourceLayouts;
import io.reactorrdma.verbs.ffm.abi.VerbsConstants;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A protection domain ({@code struct ibv_pd}): registers memory. Not thread-safe; close once, after its regions. */
public final class RdmaPd implements AutoCloseable {

    private static final long LKEY = ResourceLayouts.IBV_MR.byteOffset(MemoryLayout.PathElement.groupElement("lkey"));
    private static final long RKEY = ResourceLayouts.IBV_MR.byteOffset(MemoryLayout.PathElement.groupElement("rkey"));
    private static final int REMOTE = VerbsConstants.IBV_ACCESS_REMOTE_WRITE | VerbsConstants.IBV_ACCESS_REMOTE_READ;

    private final Libibverbs lib;
    private final String device;
    private final MemorySegment pd;
    private boolean closed;

    RdmaPd(Libibverbs lib, String device, MemorySegment pd) {
        this.lib = lib;
        this.device = device;
        this.pd = pd;
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
        if (closed) {
            return;
        }
        closed = true;
        try {
            int rc = (int) lib.deallocPd.invokeExact(pd);
            if (rc != 0) {
                throw new IllegalStateException("ibv_dealloc_pd(" + device + ") failed with " + Errno.name(rc)
                        + ": regions or queue pairs of the domain are still open");
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling ibv_dealloc_pd failed", t);
        }
    }
}
