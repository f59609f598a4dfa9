package io.reactorrdma.verbs.disni;

import io.reactorrdma.config.DisniConfig;
import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.CompletionQueue;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.ProviderCapabilities;
import io.reactorrdma.verbs.ProviderUnavailableException;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.disni.cm.CmEventLoop;
import io.reactorrdma.verbs.disni.cm.CmEvents;
import io.reactorrdma.verbs.disni.cm.SideChannel;
import io.reactorrdma.verbs.disni.work.CompletionMapper;
import io.reactorrdma.verbs.work.tracking.QpRecord;
import io.reactorrdma.verbs.work.tracking.QpTable;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An RDMA device opened through DiSNI: one rdma_cm event channel (served by a {@link CmEventLoop}),
 * a cm id bound to the device's IPv4 address (DiSNI reaches the device's {@code ibv_context} only
 * through such an id), and the queue-pair table completions are decoded against.
 */
final class DisniContext implements VerbsContext {

    /** libdisni creates every queue pair with 4 SGEs ({@code #define MAX_SGE 4}) whatever is asked. */
    static final int MAX_SGE = 4;
    /**
     * Fixed capabilities: DiSNI 2.1 exposes no {@code ibv_query_device}. Depth and CQ size are
     * conservative figures every current RoCE/IB NIC exceeds; the region size is DiSNI's int length.
     */
    static final ProviderCapabilities CAPABILITIES = new ProviderCapabilities(8192, MAX_SGE, 1 << 20,
            Integer.MAX_VALUE - 8, 1 << 30, SideChannel.MAX_CONNECT_DATA, true);

    private final DisniConfig config;
    private final String deviceName;
    private final RdmaEventChannel channel;
    private final CmEventLoop cm;
    private final RdmaCmId deviceId;
    private final IbvContext verbs;
    private final CompVectors compVectors;
    private final QpTable table = new QpTable();
    private final CompletionMapper mapper = new CompletionMapper(table);
    private final Set<AutoCloseable> owned = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private volatile String removed;

    private DisniContext(DisniConfig config, InetAddress address, String deviceName, RdmaEventChannel channel) {
        this.config = config;
        this.deviceName = deviceName;
        this.channel = channel;
        this.cm = new CmEventLoop(channel, "reactor-rdma-disni-cm-" + address.getHostAddress());
        RdmaCmId id = null;
        IbvContext ctx;
        try {
            id = cm.call("rdma_create_id", CmEventLoop.CALL_TIMEOUT, () -> channel.createId(RdmaCm.RDMA_PS_TCP));
            RdmaCmId bound = id;
            ctx = cm.call("rdma_bind_addr(" + address.getHostAddress() + ")", CmEventLoop.CALL_TIMEOUT, () -> {
                bound.bindAddr(new InetSocketAddress(address, 0));
                return bound.getVerbs();
            });
        } catch (RuntimeException e) {
            closeChannel(id);
            throw new ProviderUnavailableException("cannot open the RDMA device of " + address.getHostAddress() + ": "
                    + e.getMessage() + ". Is it the IPv4 address of an RDMA interface of this host (`ibdev2netdev`, `rdma link`)?", e);
        }
        if (ctx == null) {
            closeChannel(id);
            throw new ProviderUnavailableException(address.getHostAddress() + " is not an address of an RDMA interface: rdma_cm "
                    + "bound it but found no device. Set -Dreactor.rdma.disni.address to the IPv4 address of a RoCE netdev "
                    + "or IPoIB interface");
        }
        this.deviceId = id;
        this.verbs = ctx;
        this.compVectors = new CompVectors(numCompVectors(ctx));
        RdmaCmId device = id;
        cm.call("register device id", CmEventLoop.CALL_TIMEOUT, () -> {
            cm.register(device, (event, conn) -> {
                if (event == CmEvents.DEVICE_REMOVAL) {
                    deviceRemoved("the context's own id");
                }
            });
            return null;
        });
    }

    /**
     * A context without a device, whose CM thread is {@code cm}: lets tests drive the connection
     * and teardown paths over a fake event source. Allocating anything on it fails.
     */
    DisniContext(DisniConfig config, CmEventLoop cm) {
        this.config = config;
        this.deviceName = "none";
        this.channel = null;
        this.cm = cm;
        this.deviceId = null;
        this.verbs = null;
        this.compVectors = new CompVectors(1);
    }

    private static int numCompVectors(IbvContext ctx) {
        try {
            return ctx.getNumCompVectors(); // ibv_context.num_comp_vectors
        } catch (IOException | RuntimeException e) {
            return 1; // unknown: every queue on vector 0, as before
        }
    }

    /** Opens the device behind {@code address}; any DiSNI or JVM failure becomes a {@link ProviderUnavailableException}. */
    static VerbsContext open(DisniConfig config, InetAddress address, String deviceName) {
        RdmaEventChannel channel;
        try {
            channel = RdmaEventChannel.createEventChannel();
        } catch (IOException | LinkageError e) {
            throw new ProviderUnavailableException("DiSNI could not start (" + e + "). If libdisni loaded, check that it is "
                    + "the DiSNI 2.1 build (JNI version 32) and that the JVM runs with " + DisniEnvironment.ADD_EXPORTS, e);
        } catch (RuntimeException e) {
            throw new ProviderUnavailableException("DiSNI could not start (" + e + "); run the JVM with "
                    + DisniEnvironment.ADD_EXPORTS, e);
        }
        if (channel == null) {
            throw new ProviderUnavailableException("rdma_create_event_channel failed: is /dev/infiniband/rdma_cm present and "
                    + "readable (rdma_ucm module loaded, device permissions)?");
        }
        return new DisniContext(config, address, deviceName, channel);
    }

    private void closeChannel(RdmaCmId id) {
        cm.close();
        if (id != null) {
            CmEventLoop.destroyQuietly(id);
        }
        try {
            channel.destroyEventChannel();
        } catch (IOException | RuntimeException ignored) {
            // opening failed already; that is the error to report
        }
    }

    /** The device is gone ({@code RDMA_CM_EVENT_DEVICE_REMOVAL}). CM thread. */
    void deviceRemoved(String what) {
        if (removed != null || closed) {
            return;
        }
        removed = "the RDMA device " + deviceName + " was removed (" + CmEvents.name(CmEvents.DEVICE_REMOVAL) + " on " + what
                + "): its queue pairs, connections, regions and queues are gone; open the provider again once the device is back";
        for (AutoCloseable c : new ArrayList<>(owned)) {
            if (c instanceof DisniConnection) {
                ((DisniConnection) c).onCmEvent(CmEvents.DEVICE_REMOVAL, null);
            } else if (c instanceof DisniQueuePair) {
                ((DisniQueuePair) c).fail(removed);
            }
        }
        close(); // rdma_cm requires every id of the device to be destroyed, and its verbs objects with them
    }

    DisniConfig config() {
        return config;
    }

    /** The device's {@code ibv_context} (null for a context without a device). */
    IbvContext ibvContext() {
        return verbs;
    }

    CmEventLoop cm() {
        return cm;
    }

    RdmaEventChannel channel() {
        return channel;
    }

    void forget(AutoCloseable c) {
        owned.remove(c);
    }

    private <T extends AutoCloseable> T own(T c) {
        owned.add(c);
        return c;
    }

    private void checkOpen() {
        if (removed != null) {
            throw new VerbsException(removed);
        }
        if (closed) {
            throw new VerbsException("the disni context is closed");
        }
    }

    @Override
    public String providerName() {
        return "disni";
    }

    @Override
    public String deviceName() {
        return deviceName;
    }

    @Override
    public ProviderCapabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public ProtectionDomain allocPd() {
        checkOpen();
        try {
            IbvPd pd = verbs.allocPd();
            if (pd == null) {
                throw new IOException("no protection domain returned");
            }
            return own(new DisniProtectionDomain(this, pd));
        } catch (IOException e) {
            throw new VerbsException("ibv_alloc_pd failed: " + e.getMessage(), e);
        }
    }

    @Override
    public CompletionQueue createCq(int capacity) {
        checkOpen();
        if (capacity < 1 || capacity > CAPABILITIES.maxCqe() / 2) {
            throw new IllegalArgumentException("completion queue capacity must be 1.." + CAPABILITIES.maxCqe() / 2 + ", got " + capacity);
        }
        IbvCompChannel ch = null;
        try {
            ch = verbs.createCompChannel();
            // twice the capacity: see DisniCompletionQueue; vectors round robin, so domains interrupt different CPUs
            IbvCQ cq = verbs.createCQ(ch, 2 * capacity, compVectors.next());
            if (cq == null) {
                throw new IOException("no completion queue returned");
            }
            return own(new DisniCompletionQueue(this, capacity, ch, cq, mapper));
        } catch (IOException e) {
            if (ch != null) {
                try {
                    ch.destroyCompChannel();
                } catch (IOException | RuntimeException ignored) {
                    // reporting the creation failure
                }
            }
            throw new VerbsException("ibv_create_cq(" + 2 * capacity + ") failed: " + e.getMessage()
                    + " (the device's max_cqe, or the locked-memory limit)", e);
        }
    }

    @Override
    public QueuePair createQp(ProtectionDomain pd, QpAttributes attributes) {
        checkOpen();
        if (!(pd instanceof DisniProtectionDomain) || !(attributes.sendCq() instanceof DisniCompletionQueue)
                || !(attributes.recvCq() instanceof DisniCompletionQueue)) {
            throw new IllegalArgumentException("the protection domain and completion queues must come from this disni context");
        }
        if (attributes.maxSendSge() > MAX_SGE || attributes.maxRecvSge() > MAX_SGE) {
            throw new IllegalArgumentException("libdisni 2.1 creates queue pairs with " + MAX_SGE + " scatter/gather entries; "
                    + "asked for " + attributes.maxSendSge() + " send / " + attributes.maxRecvSge() + " receive");
        }
        if (attributes.maxSendWr() > CAPABILITIES.maxQpWr() || attributes.maxRecvWr() > CAPABILITIES.maxQpWr()) {
            throw new IllegalArgumentException("queue depth above " + CAPABILITIES.maxQpWr() + ": " + attributes);
        }
        DisniCompletionQueue scq = (DisniCompletionQueue) attributes.sendCq();
        DisniCompletionQueue rcq = (DisniCompletionQueue) attributes.recvCq();
        DisniProtectionDomain domain = (DisniProtectionDomain) pd;
        domain.queuePairs().attached(); // first: a close of the domain from here on waits for, or refuses, this one
        boolean sendTaken = false;
        try {
            scq.reserve(attributes.maxSendWr(), 0);
            sendTaken = true;
            rcq.reserve(0, attributes.maxRecvWr());
        } catch (RuntimeException e) {
            if (sendTaken) {
                scq.release(attributes.maxSendWr(), 0);
            }
            domain.queuePairs().abandoned();
            throw e;
        }
        QpRecord record = table.add(attributes.maxSendWr(), attributes.maxRecvWr());
        return own(new DisniQueuePair(this, domain, attributes, scq, rcq, record));
    }

    void forgetRecord(QpRecord r) {
        table.remove(r);
    }

    @Override
    public CmListener listen(InetSocketAddress address, int backlog) {
        checkOpen();
        return own(DisniListener.open(this, address, backlog));
    }

    @Override
    public CmConnection connect(InetSocketAddress address, QueuePair qp, ByteBuffer privateData, Duration timeout) {
        checkOpen();
        SideChannel.checkLength(SideChannel.HELLO, privateData, "connect");
        if (!(qp instanceof DisniQueuePair)) {
            throw new IllegalArgumentException("the queue pair must come from this disni context");
        }
        return own(DisniConnector.connect(this, address, (DisniQueuePair) qp, privateData, timeout));
    }

    /** Tracks a connection made by a listener, so {@link #close()} ends it. */
    void adopt(AutoCloseable c) {
        own(c);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<AutoCloseable> all = new ArrayList<>(owned);
        // connections and listeners, then queue pairs, then regions' domains and queues
        closeAll(all, c -> c instanceof DisniConnection || c instanceof DisniListener);
        List<DisniQueuePair> qps = new ArrayList<>();
        for (AutoCloseable c : all) {
            if (c instanceof DisniQueuePair) {
                qps.add((DisniQueuePair) c);
            }
        }
        closeAll(all, c -> c instanceof DisniQueuePair);
        // queue pairs are destroyed on the CM thread; their domains and queues only after them
        for (DisniQueuePair qp : qps) {
            try {
                qp.teardown().get(CmEventLoop.CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException | TimeoutException e) {
                break; // the CM thread is stuck: release what can be released
            }
        }
        closeAll(all, c -> c instanceof DisniProtectionDomain);
        closeAll(all, c -> true);
        try {
            cm.call("rdma_destroy_id(device)", CmEventLoop.CALL_TIMEOUT, () -> {
                if (deviceId == null) {
                    return null; // a context without a device (tests)
                }
                cm.unregister(deviceId);
                CmEventLoop.destroyQuietly(deviceId);
                return null;
            });
        } catch (RuntimeException ignored) {
            // closing: the channel goes below
        }
        cm.close();
        if (channel == null) {
            return;
        }
        try {
            channel.destroyEventChannel();
        } catch (IOException | RuntimeException ignored) {
            // closing: nothing left to use it
        }
    }

    private static void closeAll(List<AutoCloseable> all, java.util.function.Predicate<AutoCloseable> which) {
        for (AutoCloseable c : new ArrayList<>(all)) {
            if (which.test(c)) {
                all.remove(c);
                try {
                    c.close();
                } catch (Exception ignored) {
                    // best effort: keep releasing the rest
                }
            }
        }
    }
}
