package io.reactorrdma.verbs.disni;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.SVCRegMr;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.disni.calls.DisniCodes;
import io.reactorrdma.verbs.disni.cm.CmEventLoop;
import io.reactorrdma.verbs.work.tracking.QueuePairUsers;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A protection domain ({@code ibv_alloc_pd}); its regions are direct buffers registered with
 * {@code IbvPd.regMr}, which pins them: a failure here is most often the locked-memory limit.
 */
final class DisniProtectionDomain implements ProtectionDomain {

    private final DisniContext context;
    private final IbvPd pd;
    private final List<DisniMemoryRegion> regions = new ArrayList<>();
    private boolean closed;
    private final QueuePairUsers queuePairs = new QueuePairUsers("protection domain");

    DisniProtectionDomain(DisniContext context, IbvPd pd) {
        this.context = context;
        this.pd = pd;
    }

    IbvPd ibv() {
        return pd;
    }

    @Override
    public MemoryRegion allocate(int size, int access) {
        if (size <= 0 || size > context.capabilities().maxRegionSize()) {
            throw new IllegalArgumentException("region size must be 1.." + context.capabilities().maxRegionSize() + " bytes, got " + size);
        }
        int ibvAccess = DisniCodes.accessToIbv(access);
        ByteBuffer memory;
        try {
            memory = ByteBuffer.allocateDirect(size);
        } catch (OutOfMemoryError e) {
            throw new VerbsException("cannot allocate " + size + " bytes of direct memory for a region; raise -XX:MaxDirectMemorySize", e);
        }
        return register(memory, access, ibvAccess);
    }

    @Override
    public MemoryRegion register(ByteBuffer directBuffer, int access) {
        if (directBuffer == null || !directBuffer.isDirect()) {
            throw new IllegalArgumentException("only direct buffers can be registered (ibv_reg_mr needs a fixed address)");
        }
        // slice(): DiSNI registers [address, address + capacity) and ignores position and limit.
        return register(directBuffer.slice(), access, DisniCodes.accessToIbv(access));
    }

    private MemoryRegion register(ByteBuffer memory, int access, int ibvAccess) {
        synchronized (this) {
            if (closed) {
                throw new VerbsException("protection domain is closed");
            }
        }
        IbvMr mr;
        try {
            SVCRegMr call = pd.regMr(memory, ibvAccess).execute();
            mr = call.getMr();
            call.free();
        } catch (IOException e) {
            throw new VerbsException("ibv_reg_mr of " + memory.capacity() + " bytes with " + AccessFlags.toString(access)
                    + " failed: " + e.getMessage() + ". Registration pins memory: check `ulimit -l` (\"Max locked memory\" in "
                    + "/proc/self/limits) is at least the registered pool plus the receive rings", e);
        }
        DisniMemoryRegion r = new DisniMemoryRegion(this, mr, memory, access);
        synchronized (this) {
            regions.add(r);
        }
        return r;
    }

    synchronized void forget(DisniMemoryRegion r) {
        regions.remove(r);
    }

    /** The queue pairs in this domain: a close waits for the teardown of those being closed. */
    QueuePairUsers queuePairs() {
        return queuePairs;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
        }
        // queue pairs closed just before hand their destruction to the CM thread: wait for it; one never closed is
        // refused at once (ibv_dealloc_pd would return EBUSY)
        queuePairs.awaitReleasedOrFail(CmEventLoop.CALL_TIMEOUT);
        List<DisniMemoryRegion> left;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            left = new ArrayList<>(regions);
        }
        for (DisniMemoryRegion r : left) {
            try {
                r.close();
            } catch (RuntimeException ignored) {
                // keep going: the domain is released below
            }
        }
        int rc;
        try {
            rc = pd.deallocPd(); // DiSNI returns ibv_dealloc_pd's result instead of throwing
        } catch (Exception e) {
            throw new VerbsException("ibv_dealloc_pd failed: " + e.getMessage() + " (destroy its queue pairs first)", e);
        } finally {
            context.forget(this);
        }
        if (rc != 0) {
            throw new VerbsException("ibv_dealloc_pd returned " + rc + " (EBUSY: a queue pair or memory region still uses "
                    + "the protection domain; close queue pairs and regions first)");
        }
    }
}
