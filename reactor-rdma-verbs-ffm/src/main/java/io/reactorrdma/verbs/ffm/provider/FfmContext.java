package io.reactorrdma.verbs.ffm.provider;

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
import io.reactorrdma.verbs.ffm.abi.VerbsConstants;
import io.reactorrdma.verbs.ffm.rdmacore.DeviceCapabilities;
import io.reactorrdma.verbs.ffm.rdmacore.Libibverbs;
import io.reactorrdma.verbs.ffm.rdmacore.PortAttributes;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaCoreUnavailableException;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaDevice;
import io.reactorrdma.verbs.ffm.rdmacore.cm.CmEventChannel;
import io.reactorrdma.verbs.ffm.rdmacore.cm.CmId;
import io.reactorrdma.verbs.ffm.rdmacore.cm.Librdmacm;
import io.reactorrdma.verbs.work.tracking.CompletionDecoder;
import io.reactorrdma.verbs.work.tracking.QpRecord;
import io.reactorrdma.verbs.work.tracking.QpTable;

import java.lang.foreign.Arena;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

/**
 * An RDMA device opened through rdma-core: the device of a CM id bound to the configured address (librdmacm's own
 * {@code ibv_context}, the one its queue pairs must be created on), its capabilities from {@code ibv_query_device} and
 * {@code ibv_query_port}, one event channel served by the context's CM thread ({@link FfmCmLoop}), and the queue-pair
 * table completions are decoded against.
 */
public final class FfmContext implements VerbsContext {

    /** Bytes of private data a connect carries (the SPI's limit; an accept carries 196, a reject 148). */
    static final int MAX_PRIVATE_DATA = CmId.MAX_CONNECT_PRIVATE_DATA;
    /** Largest message: RoCE and InfiniBand ports report 2 GiB; the SPI counts in ints, and this leaves headroom. */
    static final int MAX_MESSAGE_SIZE = 1 << 30;
    /** How long close waits for a queue pair's teardown on the CM thread. */
    static final long TEARDOWN_MILLIS = 10_000;

    private final Arena arena;
    private final CmEventChannel channel;
    private final FfmCmLoop cm;
    private final CmId deviceId;
    private final RdmaDevice device;
    private final DeviceCapabilities limits;
    private final PortAttributes port;
    private final ProviderCapabilities capabilities;
    private final int maxInline;
    private final QpTable table = new QpTable();
    private final CompletionDecoder decoder = new CompletionDecoder(table);
    private final Set<AutoCloseable> owned = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    /** Taken by the one {@link #close()} that runs (a device removal on the CM thread may race the user's). */
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile String removed;

    private FfmContext(Arena arena, CmEventChannel channel, FfmCmLoop cm, CmId deviceId, FfmSettings settings) {
        this.arena = arena;
        this.channel = channel;
        this.cm = cm;
        this.deviceId = deviceId;
        this.device = deviceId.device();
        this.limits = device.capabilities();
        this.port = device.port(1);
        if (!port.isActive()) {
            throw new RdmaCoreUnavailableException("port 1 of " + device.name() + " is not ACTIVE (state " + port.state()
                    + "): check its link (`ibv_devinfo -d " + device.name() + "`, `rdma link`), cable and switch port");
        }
        this.maxInline = settings.maxInline();
        cm.register(deviceId.address(), event -> {
            if (event.type() == VerbsConstants.RDMA_CM_EVENT_DEVICE_REMOVAL) {
                deviceRemoved();
            }
        });
        this.capabilities = new ProviderCapabilities(limits.maxQpWr(), limits.maxSge(), limits.maxCqe(),
                (int) Math.min(limits.maxMrSize(), Integer.MAX_VALUE - 8), MAX_MESSAGE_SIZE, MAX_PRIVATE_DATA, true);
    }

    /**
     * Opens the device behind the configured address; rdma-core's failures (no library, no kernel support, no device,
     * no access, a port down, an address not on an RDMA interface) become a {@link ProviderUnavailableException} that
     * says what to do.
     */
    public static FfmContext open(FfmSettings settings) {
        Arena arena = Arena.ofShared();
        CmEventChannel channel = null;
        FfmCmLoop loop = null;
        CmId id = null;
        try {
            Libibverbs verbs = Libibverbs.open(settings.libibverbs(), arena);
            List<String> devices = verbs.deviceNames();
            Librdmacm rdmacm = Librdmacm.open(settings.librdmacm(), verbs, arena);
            InetAddress address = address(settings, devices);
            channel = rdmacm.createEventChannel();
            loop = new FfmCmLoop(channel, "reactor-rdma-ffm-cm-" + address.getHostAddress());
            id = CmId.create(channel);
            try {
                id.bind(new InetSocketAddress(address, 0));
            } catch (RdmaCoreUnavailableException e) {
                throw new RdmaCoreUnavailableException(e.getMessage() + "; is " + address.getHostAddress() + " the IPv4 address "
                        + "of an RDMA interface of this host (`rdma link`, `ibdev2netdev`)? Set -D" + FfmSettings.ADDRESS, e);
            }
            return new FfmContext(arena, channel, loop, id, settings);
        } catch (RdmaCoreUnavailableException | IllegalStateException e) {
            closeQuietly(id);
            closeQuietly(loop);
            closeQuietly(channel);
            arena.close();
            throw new ProviderUnavailableException("provider 'ffm' is unavailable: " + e.getMessage()
                    + ". See docs/HARDWARE.md; without RDMA hardware use provider 'shm' (across processes) or 'loopback' (one JVM)", e);
        } catch (RuntimeException | Error e) {
            closeQuietly(id);
            closeQuietly(loop);
            closeQuietly(channel);
            arena.close();
            throw e;
        }
    }

    private static InetAddress address(FfmSettings settings, List<String> devices) {
        if (settings.address() != null) {
            InetAddress a;
            try {
                a = InetAddress.getByName(settings.address());
            } catch (UnknownHostException e) {
                throw new RdmaCoreUnavailableException(FfmSettings.ADDRESS + "=" + settings.address() + " does not resolve; "
                        + "give the IPv4 address of an RDMA interface (`rdma link`, `ibdev2netdev`)", e);
            }
            if (!(a instanceof Inet4Address)) {
                throw new RdmaCoreUnavailableException(FfmSettings.ADDRESS + "=" + settings.address() + " is not IPv4; give "
                        + "the IPv4 address of an RDMA interface");
            }
            if (a.isAnyLocalAddress()) {
                throw new RdmaCoreUnavailableException(FfmSettings.ADDRESS + "=" + settings.address() + " is the wildcard "
                        + "address, which names no RDMA device (rdma_cm binds it to none); the context opens one device: give "
                        + "the IPv4 address of its RDMA interface (`rdma link`, `ibdev2netdev`)");
            }
            return a;
        }
        InetAddress a = InterfaceAddresses.firstIpv4(InterfaceAddresses.SYSFS, devices);
        if (a == null) {
            throw new RdmaCoreUnavailableException("no IPv4 address on the network interfaces of RDMA devices " + devices
                    + " (rdma_cm finds a device only through an IP address of its interface): assign one to the RoCE netdev or "
                    + "IPoIB interface (`ibdev2netdev` shows which), or set -D" + FfmSettings.ADDRESS + "=<IPv4>");
        }
        return a;
    }

    FfmCmLoop cm() {
        return cm;
    }

    CmEventChannel channel() {
        return channel;
    }

    RdmaDevice device() {
        return device;
    }

    /** Whether {@code id} is on this context's device: only then may its queue pair use this context's domain. */
    boolean isOwnDevice(CmId id) {
        try {
            return id.device().contextAddress() == device.contextAddress();
        } catch (IllegalStateException noDevice) {
            return false;
        }
    }

    /**
     * Why a connect request that came in on another device cannot be accepted, and what to do: only a listener on the
     * wildcard address gets such requests (one bound to an address listens on that address's device).
     */
    String requestOnOtherDevice(InetSocketAddress from, CmId request) {
        String other;
        try {
            other = "RDMA device " + request.device().name();
        } catch (IllegalStateException noDevice) {
            other = "no RDMA device";
        }
        return "the connect request from " + from + " came in on " + other + ", not on this context's " + device.name()
                + ": a listener on the wildcard address (0.0.0.0) takes requests on every device, and librdmacm refuses a "
                + "queue pair whose protection domain is on another device (rdma_create_qp: EINVAL). The client is rejected. "
                + "Listen on the IPv4 address of " + device.name() + "'s interface (" + deviceId.localAddress().getAddress()
                .getHostAddress() + "); clients that reach this host through another device need a context on that device: "
                + "set -D" + FfmSettings.ADDRESS + " to the IPv4 address of its interface";
    }

    /** The port's active MTU in bytes, as {@code ibv_query_port} reported it when the context opened. */
    public int activeMtu() {
        return port.activeMtuBytes();
    }

    /** READs of the peer this side lets be outstanding at once: the device's {@code max_qp_rd_atom}. */
    int responderResources() {
        return Math.max(0, Math.min(255, limits.maxQpRdAtom()));
    }

    /** READs {@code qp} may have outstanding at once: its attributes' maxRdAtomic, already bounded by the device. */
    int initiatorDepth(FfmQueuePair qp) {
        return qp.attributes().maxRdAtomic();
    }

    /** The device is gone ({@code RDMA_CM_EVENT_DEVICE_REMOVAL}): {@link #markRemoved()}, then close. CM thread. */
    void deviceRemoved() {
        markRemoved();
        close(); // rdma_cm requires every id of the device to be destroyed, and its verbs objects with them
    }

    /** From now on every call says the device is gone; its queue pairs fail with that cause. */
    void markRemoved() {
        if (removed != null || closed) {
            return;
        }
        removed = "the RDMA device " + device.name() + " was removed: its queue pairs, connections, regions and queues are "
                + "gone; open the provider again once the device is back";
        for (AutoCloseable c : new ArrayList<>(owned)) {
            if (c instanceof FfmQueuePair qp) {
                qp.fail(removed);
            }
        }
    }

    void forget(AutoCloseable c) {
        owned.remove(c);
        if (c instanceof FfmQueuePair qp) {
            table.remove(qp.record);
        }
    }

    /** Tracks a connection a listener accepted, so {@link #close()} ends it. */
    void adopt(AutoCloseable c) {
        owned.add(c);
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
            throw new VerbsException("the ffm context is closed");
        }
    }

    @Override
    public String providerName() {
        return "ffm";
    }

    @Override
    public String deviceName() {
        return device.name();
    }

    @Override
    public ProviderCapabilities capabilities() {
        return capabilities;
    }

    @Override
    public ProtectionDomain allocPd() {
        checkOpen();
        try {
            return own(new FfmProtectionDomain(device.allocatePd(), capabilities.maxRegionSize(), this::forget));
        } catch (RdmaCoreUnavailableException e) {
            throw new VerbsException(e.getMessage(), e);
        }
    }

    @Override
    public CompletionQueue createCq(int capacity) {
        checkOpen();
        if (capacity < 1 || capacity > capabilities.maxCqe() / 2) {
            throw new IllegalArgumentException("completion queue capacity must be 1.." + capabilities.maxCqe() / 2 + ", got " + capacity);
        }
        try {
            return own(new FfmCompletionQueue(device, capacity, decoder, this::forget));
        } catch (RdmaCoreUnavailableException e) {
            throw new VerbsException(e.getMessage() + " (the device's max_cqe, or the locked-memory limit: ulimit -l)", e);
        }
    }

    @Override
    public QueuePair createQp(ProtectionDomain pd, QpAttributes attributes) {
        checkOpen();
        if (!(pd instanceof FfmProtectionDomain domain) || !(attributes.sendCq() instanceof FfmCompletionQueue scq)
                || !(attributes.recvCq() instanceof FfmCompletionQueue rcq)) {
            throw new IllegalArgumentException("the protection domain and completion queues must come from this ffm context");
        }
        if (attributes.maxSendSge() > capabilities.maxSge() || attributes.maxRecvSge() > capabilities.maxSge()) {
            throw new IllegalArgumentException(device.name() + " allows " + capabilities.maxSge() + " scatter/gather entries "
                    + "per request; asked for " + attributes.maxSendSge() + " send / " + attributes.maxRecvSge() + " receive");
        }
        if (attributes.maxSendWr() > capabilities.maxQpWr() || attributes.maxRecvWr() > capabilities.maxQpWr()) {
            throw new IllegalArgumentException("queue depth above " + device.name() + "'s " + capabilities.maxQpWr() + ": " + attributes);
        }
        // READs outstanding: what the caller asked, within what the device lets an initiator have (max_qp_init_rd_atom)
        QpAttributes bounded = attributes.maxRdAtomic() > limits.maxQpInitRdAtom() && limits.maxQpInitRdAtom() > 0
                ? attributes.withMaxRdAtomic(limits.maxQpInitRdAtom()) : attributes;
        domain.queuePairs().attached(); // first: a close of the domain from here on waits for, or refuses, this one
        boolean sendTaken = false;
        boolean recvTaken = false;
        QpRecord record = null;
        try {
            scq.reserve(attributes.maxSendWr(), 0);
            sendTaken = true;
            rcq.reserve(0, attributes.maxRecvWr());
            recvTaken = true;
            record = table.add(attributes.maxSendWr(), attributes.maxRecvWr());
            return own(new FfmQueuePair(this, domain, bounded, scq, rcq, maxInline, record)); // its chains: native memory
        } catch (RuntimeException e) {
            // give back what this queue pair took
            if (record != null) {
                table.remove(record);
            }
            if (recvTaken) {
                rcq.release(0, attributes.maxRecvWr());
            }
            if (sendTaken) {
                scq.release(attributes.maxSendWr(), 0);
            }
            domain.queuePairs().abandoned();
            throw e;
        }
    }

    @Override
    public CmListener listen(InetSocketAddress address, int backlog) {
        checkOpen();
        return own(FfmListener.open(this, address, backlog));
    }

    @Override
    public CmConnection connect(InetSocketAddress address, QueuePair qp, ByteBuffer privateData, Duration timeout) {
        checkOpen();
        byte[] data = bytes(privateData, MAX_PRIVATE_DATA, "a connect");
        if (!(qp instanceof FfmQueuePair q)) {
            throw new IllegalArgumentException("the queue pair must come from this ffm context");
        }
        return own(FfmConnector.connect(this, address, q, data, timeout));
    }

    /** The remaining bytes of {@code data} (null: none), refused above {@code max} before anything is sent. */
    static byte[] bytes(ByteBuffer data, int max, String what) {
        if (data == null) {
            return new byte[0];
        }
        if (data.remaining() > max) {
            throw new IllegalArgumentException(what + " carries at most " + max + " bytes of private data (rdma_cm over RoCE and "
                    + "InfiniBand), got " + data.remaining());
        }
        byte[] b = new byte[data.remaining()];
        data.duplicate().get(b);
        return b;
    }

    /** Closes connections and listeners, then queue pairs (their ids and native queue pairs on the CM thread), then
     *  regions' domains and queues, the context's own id, the CM thread and the channel; idempotent. */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        closed = true;
        List<AutoCloseable> all = new ArrayList<>(owned);
        closeAll(all, c -> c instanceof FfmConnection || c instanceof FfmListener);
        List<FfmQueuePair> qps = new ArrayList<>();
        for (AutoCloseable c : all) {
            if (c instanceof FfmQueuePair qp) {
                qps.add(qp);
            }
        }
        closeAll(all, c -> c instanceof FfmQueuePair);
        for (FfmQueuePair qp : qps) {
            try {
                qp.teardown().get(TEARDOWN_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException | TimeoutException e) {
                break; // the CM thread is stuck: release what can be released
            }
        }
        closeAll(all, c -> c instanceof FfmProtectionDomain);
        closeAll(all, c -> true);
        cm.unregister(deviceId.address());
        closeQuietly(deviceId);
        // the channel and rdma-core go once the CM thread is out of them (at its end when a device removal closes from it)
        cm.close(() -> {
            closeQuietly(channel);
            arena.close();
        });

    }

    private static void closeAll(List<AutoCloseable> all, Predicate<AutoCloseable> which) {
        for (AutoCloseable c : new ArrayList<>(all)) {
            if (which.test(c)) {
                all.remove(c);
                closeQuietly(c);
            }
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception ignored) {
            // best effort: keep releasing the rest
        }
    }

    @Override
    public String toString() {
        return "FfmContext{" + device.name() + ", port 1 " + (port.isRoce() ? "RoCE" : "InfiniBand") + " MTU " + activeMtu()
                + ", " + capabilities + "}";
    }
}
