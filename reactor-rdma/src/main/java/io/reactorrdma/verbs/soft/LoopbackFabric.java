package io.reactorrdma.verbs.soft;

import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.soft.shared.SharedMemory;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The in-JVM fabric: memory is direct buffers, peers are contexts of the same JVM that find each
 * other by port in a JVM-wide table, and a peer's structures and regions are reached directly.
 */
final class LoopbackFabric extends SoftFabric {

    private static final ConcurrentHashMap<Integer, SoftListener> LISTENERS = new ConcurrentHashMap<>();
    /** Ephemeral ports for {@code listen(port 0)}: above the range tests usually pick by hand. */
    private static final AtomicInteger NEXT_EPHEMERAL = new AtomicInteger(49152);

    private final SoftContext context;
    private volatile Thread providerThread;

    LoopbackFabric(SoftContext context) {
        this.context = context;
    }

    @Override
    String name() {
        return "loopback";
    }

    @Override
    ByteBuffer allocateStructure(String name, int size) {
        return SharedMemory.allocateDirect(size);
    }

    @Override
    void releaseStructure(String name) {
        // a direct buffer goes with its last reference
    }

    @Override
    ByteBuffer allocateRegionMemory(int key, int size) {
        try {
            return SharedMemory.allocateDirect(size);
        } catch (OutOfMemoryError e) {
            throw new VerbsException("cannot allocate a " + size + "-byte loopback region: direct memory is exhausted "
                    + "(raise -XX:MaxDirectMemorySize or release regions)", e);
        }
    }

    @Override
    void publishRegion(SoftMemoryRegion region) {
        // peers in this JVM look regions up in the owner's table directly
    }

    @Override
    void unpublishRegion(SoftMemoryRegion region) {
        // the region's invalid flag is what peers check
    }

    @Override
    CmListener listen(InetSocketAddress address, int backlog) {
        int port = address.getPort();
        if (port == 0) {
            for (int i = 0; i < 16384; i++) {
                int candidate = 49152 + Math.floorMod(NEXT_EPHEMERAL.getAndIncrement() - 49152, 16384);
                SoftListener l = newListener(address, candidate, backlog);
                if (LISTENERS.putIfAbsent(candidate, l) == null) {
                    return l;
                }
            }
            throw new VerbsException("no free loopback port left in 49152..65535");
        }
        SoftListener l = newListener(address, port, backlog);
        if (LISTENERS.putIfAbsent(port, l) != null) {
            throw new VerbsException("loopback port " + port + " already has a listener in this JVM; pick another port or 0");
        }
        return l;
    }

    private SoftListener newListener(InetSocketAddress address, int port, int backlog) {
        InetSocketAddress local = new InetSocketAddress(address.getAddress(), port);
        SoftListener[] self = new SoftListener[1];
        self[0] = new SoftListener(context, local, backlog, () -> LISTENERS.remove(port, self[0]));
        return self[0];
    }

    @Override
    CmConnection connect(InetSocketAddress address, SoftQueuePair qp, ByteBuffer privateData, Duration timeout) {
        SoftListener listener = LISTENERS.get(address.getPort());
        if (listener == null || listener.isClosed()) {
            throw new VerbsException("nothing listens on loopback port " + address.getPort()
                    + " in this JVM (the loopback fabric connects contexts of one JVM; use shm across processes)");
        }
        LoopbackRequest request = new LoopbackRequest(listener, qp, privateData);
        if (!listener.offer(request)) {
            throw new VerbsException("the listener on loopback port " + address.getPort() + " has a full backlog; retry later");
        }
        return request.awaitAnswer(timeout);
    }

    @Override
    void awaitEvents(long nanos) {
        providerThread = Thread.currentThread();
        LockSupport.parkNanos(this, nanos);
    }

    @Override
    void wakeProviderThread() {
        Thread t = providerThread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    @Override
    void vanish() {
        // peers see SoftContext.hasVanished() in their liveness check
    }

    @Override
    void close() {
        // nothing outside the heap
    }
}
