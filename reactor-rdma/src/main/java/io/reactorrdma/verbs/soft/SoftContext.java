package io.reactorrdma.verbs.soft;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.CompletionQueue;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.ProviderCapabilities;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.soft.fault.SoftFaults;
import io.reactorrdma.verbs.soft.shared.CqLayout;
import io.reactorrdma.verbs.soft.shared.QpLayout;
import io.reactorrdma.verbs.soft.shared.RegionKeys;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The soft provider's device context: a software RNIC with the semantics of a real one.
 *
 * <p>Work runs on the poster's thread, as a NIC would run it on arrival of the doorbell: the
 * poster copies straight into the peer's memory (one copy, like DMA) and writes the completion
 * where the peer polls it. One provider thread per context does what cannot wait for a poster:
 * RNR retries after their delay, heartbeats, noticing dead peers, and on shm accepting peers'
 * connections to our completion queues' {@link io.reactorrdma.verbs.soft.shared.WakeSocket}s (a blocked poller is then woken by the
 * peer's byte directly) and relaying the wake-ups of peers that have to use the control socket.
 */
public final class SoftContext implements VerbsContext {

    private static final Logger LOG = Loggers.getLogger(SoftContext.class);

    static final int MAX_QPS = 16384;

    final SoftConfig config;
    /** Injected faults (tests); {@link SoftFaults#none()} otherwise. */
    final SoftFaults faults;
    final String id;
    final SoftFabric fabric;
    private final AtomicReferenceArray<SoftMemoryRegion> regions;
    /** The tag of each slot's last key ({@link RegionKeys}). */
    private final int[] tags;
    /** Draws key tags, region slots and the address salt: unpredictable to peers. Used under this object's lock. */
    private final java.security.SecureRandom random = new java.security.SecureRandom();
    /** This context's address salt ({@link RegionKeys#addressSalt}). */
    private final long addressSalt;
    private final AtomicReferenceArray<SoftQueuePair> qps = new AtomicReferenceArray<>(MAX_QPS);
    private final AtomicInteger nextQpn = new AtomicInteger(1);
    /** Protection domains are numbered from a random start, so two contexts rarely share a number. */
    private final AtomicInteger nextPd;
    private final AtomicInteger nextCq = new AtomicInteger(1);
    private final List<SoftCompletionQueue> cqs = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> listeners = new CopyOnWriteArrayList<>();
    final List<SoftConnection> connections = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<SoftQueuePair> rnrStalled = new ConcurrentLinkedQueue<>();
    private final Thread providerThread;
    private volatile boolean closed;
    private volatile boolean vanished;
    /** Registrations made and bytes registered now (under this object's lock), for {@link SoftFaults}. */
    private long registrations;
    private long registeredBytes;

    SoftContext(SoftConfig config, SoftFaults faults, java.util.function.Function<SoftContext, SoftFabric> fabricFactory) {
        this.config = Objects.requireNonNull(config, "config");
        this.faults = Objects.requireNonNull(faults, "faults");
        this.id = ProcessHandle.current().pid() + "-" + Integer.toHexString(ThreadLocalRandom.current().nextInt() | 0x10000000);
        this.regions = new AtomicReferenceArray<>(config.maxRegions());
        this.tags = new int[config.maxRegions()];
        this.addressSalt = RegionKeys.addressSalt(random);
        this.nextPd = new AtomicInteger(1 + random.nextInt(1 << 30));
        this.fabric = fabricFactory.apply(this);
        this.providerThread = new Thread(this::providerLoop, "reactor-rdma-" + fabric.name() + "-" + id);
        providerThread.setDaemon(true);
        providerThread.start();
    }

    /** Opens a context on the in-JVM fabric. */
    public static SoftContext openLoopback(SoftConfig config) {
        return openLoopback(config, SoftFaults.none());
    }

    /** Opens a context on the in-JVM fabric that injects {@code faults} (tests; docs/SOFT-PROVIDER.md, "Fault injection"). */
    public static SoftContext openLoopback(SoftConfig config, SoftFaults faults) {
        return new SoftContext(config, faults, LoopbackFabric::new);
    }

    /** Opens a context on the cross-process shared-memory fabric. */
    public static SoftContext openShm(SoftConfig config) {
        return openShm(config, SoftFaults.none());
    }

    /** Opens a context on the shared-memory fabric that injects {@code faults} (tests; docs/SOFT-PROVIDER.md, "Fault injection"). */
    public static SoftContext openShm(SoftConfig config, SoftFaults faults) {
        return new SoftContext(config, faults, ShmFabric::new);
    }

    @Override
    public String providerName() {
        return fabric.name();
    }

    @Override
    public String deviceName() {
        return "soft-" + fabric.name() + "0";
    }

    /** The context's unique name (process id and a random suffix): it prefixes every file of an shm context. */
    public String id() {
        return id;
    }

    @Override
    public ProviderCapabilities capabilities() {
        return new ProviderCapabilities(SoftLimits.MAX_QP_WR, SoftLimits.MAX_SGE, SoftLimits.MAX_CQE,
                SoftLimits.MAX_REGION_SIZE, SoftLimits.MAX_MESSAGE_SIZE, SoftLimits.MAX_CONNECT_PRIVATE_DATA,
                fabric instanceof LoopbackFabric);
    }

    @Override
    public ProtectionDomain allocPd() {
        checkOpen();
        return new SoftProtectionDomain(this, nextPd.getAndIncrement());
    }

    @Override
    public CompletionQueue createCq(int capacity) {
        checkOpen();
        if (capacity < 1 || capacity > SoftLimits.MAX_CQE) {
            throw new IllegalArgumentException("completion queue capacity must be 1.." + SoftLimits.MAX_CQE + ", got " + capacity);
        }
        int n = nextCq.getAndIncrement();
        String name = SoftCompletionQueue.nameOf(n);
        ByteBuffer ring = fabric.allocateStructure(name, CqLayout.size(capacity));
        SoftCompletionQueue cq = new SoftCompletionQueue(this, n, capacity, ring, fabric.openWakeSocket(n));
        cqs.add(cq);
        return cq;
    }

    @Override
    public QueuePair createQp(ProtectionDomain pd, QpAttributes attributes) {
        checkOpen();
        if (!(pd instanceof SoftProtectionDomain) || ((SoftProtectionDomain) pd).context != this) {
            throw new IllegalArgumentException("the protection domain belongs to another context; allocate it from this one");
        }
        SoftProtectionDomain spd = (SoftProtectionDomain) pd;
        spd.checkOpen();
        SoftCompletionQueue sendCq = ownCq(attributes.sendCq(), "send");
        SoftCompletionQueue recvCq = ownCq(attributes.recvCq(), "receive");
        if (attributes.maxSendWr() > SoftLimits.MAX_QP_WR || attributes.maxRecvWr() > SoftLimits.MAX_QP_WR) {
            throw new IllegalArgumentException("queue depth above " + SoftLimits.MAX_QP_WR + ": " + attributes);
        }
        if (attributes.maxSendSge() > SoftLimits.MAX_SGE || attributes.maxRecvSge() > SoftLimits.MAX_SGE) {
            throw new IllegalArgumentException("SGE limit above " + SoftLimits.MAX_SGE + ": " + attributes);
        }
        int qpn = allocateQpn();
        String name = "qp" + qpn;
        int size = QpLayout.totalSize(attributes.maxRecvWr(), attributes.maxRecvSge(), attributes.maxSendWr(), attributes.maxSendSge());
        if (sendCq == recvCq) {
            sendCq.reserveSlots(attributes.maxSendWr(), attributes.maxRecvWr(), true);
        } else {
            sendCq.reserveSlots(attributes.maxSendWr(), 0, true);
            try {
                recvCq.reserveSlots(0, attributes.maxRecvWr(), false);
            } catch (RuntimeException e) {
                sendCq.releaseSlots(attributes.maxSendWr(), true);
                throw e;
            }
        }
        ByteBuffer memory;
        try {
            memory = fabric.allocateStructure(name, size);
        } catch (RuntimeException e) {
            sendCq.releaseSlots(attributes.maxSendWr(), true);
            recvCq.releaseSlots(attributes.maxRecvWr(), false);
            throw e;
        }
        SoftQueuePair qp = new SoftQueuePair(this, spd, attributes, qpn, sendCq, recvCq, name, memory);
        qps.set(qpn % MAX_QPS, qp);
        recvCq.attachRecv(qp);
        return qp;
    }

    private int allocateQpn() {
        for (int i = 0; i < MAX_QPS; i++) {
            int qpn = nextQpn.getAndIncrement() & 0xFFFFFF;
            if (qpn != 0 && qps.get(qpn % MAX_QPS) == null) {
                return qpn;
            }
        }
        throw new VerbsException("this context already has " + MAX_QPS + " queue pairs; destroy some first");
    }

    private SoftCompletionQueue ownCq(CompletionQueue cq, String which) {
        if (!(cq instanceof SoftCompletionQueue) || ((SoftCompletionQueue) cq).context != this) {
            throw new IllegalArgumentException("the " + which + " completion queue belongs to another context; create it from this one");
        }
        return (SoftCompletionQueue) cq;
    }

    /** The queue pair with this number, or null. No allocation: used on the poll path. */
    SoftQueuePair qp(int qpn) {
        SoftQueuePair qp = qps.get(Math.floorMod(qpn, MAX_QPS));
        return qp != null && qp.qpn == qpn ? qp : null;
    }

    void removeQp(SoftQueuePair qp) {
        qps.compareAndSet(qp.qpn % MAX_QPS, qp, null);
    }

    void removeCq(SoftCompletionQueue cq) {
        cqs.remove(cq);
    }

    @Override
    public CmListener listen(InetSocketAddress address, int backlog) {
        checkOpen();
        Objects.requireNonNull(address, "address");
        if (backlog < 1) {
            throw new IllegalArgumentException("backlog must be at least 1, got " + backlog);
        }
        CmListener listener = fabric.listen(address, backlog);
        listeners.add(listener);
        return listener;
    }

    void removeListener(CmListener listener) {
        listeners.remove(listener);
    }

    @Override
    public CmConnection connect(InetSocketAddress address, QueuePair qp, ByteBuffer privateData, Duration timeout) {
        checkOpen();
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(timeout, "timeout");
        SoftQueuePair sqp = ownQp(qp);
        sqp.checkConnectable();
        ByteBuffer pd = privateData(privateData, SoftLimits.MAX_CONNECT_PRIVATE_DATA, "connect");
        cmStep(); // address and route resolution
        CmConnection c = fabric.connect(address, sqp, pd, timeout);
        sqp.numberKnown();
        return c;
    }

    /**
     * The server side of an accept after the queue pair is connected: in strict mode the call
     * returns only after a CM step (the client's ready-to-use message), while the client may
     * already send; then the queue pair's number is known.
     */
    void accepted(SoftQueuePair qp) {
        cmStep();
        qp.numberKnown();
    }

    /** Strict mode: one connection-management step takes {@link SoftConfig#cmDelay()}. */
    void cmStep() {
        long nanos = config.cmDelay().toNanos();
        if (nanos > 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(nanos);
        }
    }

    SoftQueuePair ownQp(QueuePair qp) {
        if (!(qp instanceof SoftQueuePair) || ((SoftQueuePair) qp).context != this) {
            throw new IllegalArgumentException("the queue pair belongs to another context; create it from this one");
        }
        return (SoftQueuePair) qp;
    }

    /** A private copy of the caller's private data, checked against the CM limit. */
    static ByteBuffer privateData(ByteBuffer data, int max, String what) {
        if (data == null) {
            return ByteBuffer.allocate(0).asReadOnlyBuffer();
        }
        if (data.remaining() > max) {
            throw new IllegalArgumentException(what + " private data is " + data.remaining() + " bytes; RDMA CM carries at most "
                    + max + " bytes with a " + what);
        }
        ByteBuffer copy = ByteBuffer.allocate(data.remaining());
        copy.put(data.duplicate()).flip();
        return copy.asReadOnlyBuffer();
    }

    // ---------------------------------------------------------------- regions

    synchronized SoftMemoryRegion register(SoftProtectionDomain pd, int size, int access, ByteBuffer callerMemory) {
        checkOpen();
        faults.checkRegistration(registrations + 1, registeredBytes, size);
        int index = freeRegionIndex();
        int tag = tags[index] = RegionKeys.nextTag(random, tags[index]);
        int key = RegionKeys.key(index, tag);
        ByteBuffer memory = callerMemory != null ? callerMemory : fabric.allocateRegionMemory(key, size);
        SoftMemoryRegion mr = new SoftMemoryRegion(this, pd.id, index, key,
                RegionKeys.baseAddress(addressSalt, index), size, access, memory);
        regions.set(index, mr);
        fabric.publishRegion(mr);
        registrations++;
        registeredBytes += size;
        return mr;
    }

    SoftMemoryRegion registerCallerMemory(SoftProtectionDomain pd, ByteBuffer buffer, int access) {
        if (!(fabric instanceof LoopbackFabric)) {
            throw new UnsupportedOperationException("the " + fabric.name() + " fabric cannot register caller memory: peers in other "
                    + "processes can only reach memory in files they can map; allocate registered memory with ProtectionDomain.allocate");
        }
        if (buffer == null || !buffer.isDirect()) {
            throw new IllegalArgumentException("only direct buffers can be registered");
        }
        if (buffer.remaining() == 0) {
            throw new IllegalArgumentException("cannot register an empty buffer");
        }
        ByteBuffer slice = buffer.slice().order(java.nio.ByteOrder.nativeOrder());
        return register(pd, slice.capacity(), access, slice);
    }

    /** A free slot, searched from a random start so that the slot (the key's low half) is not predictable either. */
    private int freeRegionIndex() {
        int n = regions.length();
        int start = random.nextInt(n);
        for (int i = 0; i < n; i++) {
            int index = (start + i) % n;
            if (regions.get(index) == null) {
                return index;
            }
        }
        throw new VerbsException("this context holds " + n + " regions, its limit; deregister some or raise "
                + "reactor.rdma.soft.maxRegions (SoftConfig.withMaxRegions)");
    }

    synchronized void deregister(SoftMemoryRegion mr) {
        if (!mr.invalidate()) {
            return;
        }
        fabric.unpublishRegion(mr);
        regions.compareAndSet(mr.index, mr, null);
        registeredBytes -= mr.length;
    }

    synchronized void closePd(SoftProtectionDomain pd) {
        for (int i = 0; i < regions.length(); i++) {
            SoftMemoryRegion mr = regions.get(i);
            if (mr != null && mr.pdId == pd.id) {
                deregister(mr);
            }
        }
    }

    /** The live local region with this key, or null. No allocation: used on the post path. */
    SoftMemoryRegion localRegion(int key) {
        int index = RegionKeys.index(key);
        if (index >= regions.length()) {
            return null;
        }
        SoftMemoryRegion mr = regions.get(index);
        return mr != null && mr.key == key && mr.isValid() ? mr : null;
    }

    /** Whether any send queue of this context is being run now (see ShmFabric.unmapRetired). */
    boolean anySendQueueRunning() {
        for (int i = 0; i < MAX_QPS; i++) {
            SoftQueuePair qp = qps.get(i);
            if (qp != null && qp.isRunningSendQueue()) {
                return true;
            }
        }
        return false;
    }

    /** Live regions, for tests and statistics. */
    int liveRegions() {
        int n = 0;
        for (int i = 0; i < regions.length(); i++) {
            if (regions.get(i) != null) {
                n++;
            }
        }
        return n;
    }

    // ---------------------------------------------------------------- provider thread

    void scheduleRnrRetry(SoftQueuePair qp) {
        rnrStalled.add(qp);
        fabric.wakeProviderThread();
    }

    private void providerLoop() {
        long tick = Math.max(1_000_000L, config.heartbeatInterval().toNanos() / 2);
        while (!closed && !vanished) {
            try {
                long now = System.nanoTime();
                long untilRetry = runDueRnrRetries(now);
                checkPeers(now);
                fabric.awaitEvents(Math.min(tick, untilRetry));
            } catch (Throwable t) {
                // The provider thread must survive anything a peer does; report and go on.
                LOG.error("soft provider thread of context " + id + " caught " + t + "; it goes on", t);
            }
        }
    }

    /** Heartbeats and liveness: a link whose peer is gone fails its connection. */
    private void checkPeers(long now) {
        for (SoftConnection c : connections) {
            String cause = c.link.checkPeer(now);
            if (cause != null) {
                c.peerDied(cause);
            }
        }
    }

    /** Retries the queue pairs whose RNR delay has passed; returns nanoseconds until the next one is due. */
    private long runDueRnrRetries(long now) {
        long next = Long.MAX_VALUE;
        for (int i = rnrStalled.size(); i > 0; i--) {
            SoftQueuePair qp = rnrStalled.poll();
            if (qp == null) {
                break;
            }
            long due = qp.rnrDeadline();
            if (due - now <= 0) {
                qp.retryAfterRnr();
            } else {
                rnrStalled.add(qp);
                next = Math.min(next, due - now);
            }
        }
        return next;
    }

    // ---------------------------------------------------------------- lifecycle

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the " + fabric.name() + " context " + id + " is closed");
        }
    }

    boolean isClosed() {
        return closed;
    }

    /** Whether this context vanished (test hook) — peers see it as dead. */
    boolean hasVanished() {
        return vanished;
    }

    /**
     * Test hook: disappears as a killed process would. Nothing is disconnected or cleaned up;
     * peers learn of it only by their liveness checks. Use {@link #close()} afterwards to free
     * local resources.
     */
    public void vanish() {
        vanished = true;
        fabric.vanish();
        providerThread.interrupt();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        List<RuntimeException> errors = new ArrayList<>();
        for (AutoCloseable l : listeners) {
            try {
                l.close();
            } catch (Exception e) {
                errors.add(new RuntimeException(e));
            }
        }
        for (SoftConnection c : connections) {
            c.disconnect();
        }
        for (int i = 0; i < MAX_QPS; i++) {
            SoftQueuePair qp = qps.get(i);
            if (qp != null) {
                qp.close();
            }
        }
        for (SoftCompletionQueue cq : cqs) {
            cq.forceClose();
        }
        synchronized (this) {
            for (int i = 0; i < regions.length(); i++) {
                SoftMemoryRegion mr = regions.get(i);
                if (mr != null) {
                    deregister(mr);
                }
            }
        }
        closed = true;
        fabric.wakeProviderThread();
        try {
            providerThread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        fabric.close();
        if (!errors.isEmpty()) {
            throw errors.get(0);
        }
    }

    @Override
    public String toString() {
        return "SoftContext{" + fabric.name() + ", id=" + id + (closed ? ", closed" : "") + "}";
    }
}
