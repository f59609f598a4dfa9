package io.reactorrdma.verbs.ffm.rdmacore.cm;

import io.reactorrdma.verbs.ffm.abi.CmLayouts;
import io.reactorrdma.verbs.ffm.abi.Offsets;
import io.reactorrdma.verbs.ffm.abi.ResourceLayouts;
import io.reactorrdma.verbs.ffm.abi.VerbsConstants;
import io.reactorrdma.verbs.ffm.rdmacore.Errno;
import io.reactorrdma.verbs.ffm.rdmacore.Libibverbs;
import io.reactorrdma.verbs.ffm.rdmacore.NativeCalls;
import io.reactorrdma.verbs.ffm.rdmacore.QpCapacities;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaCoreUnavailableException;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaCq;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaDevice;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaPd;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaQp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/**
 * A connection-manager id ({@code struct rdma_cm_id}): a listener, or one end of a connection with its queue pair.
 * Each step answers with an event on the id's channel ({@link CmEventChannel#awaitEvent}), as librdmacm's
 * asynchronous calls do. IPv4 only, as the disni provider. Close once, after its queue pair.
 */
public final class CmId implements AutoCloseable {

    private static final long VERBS = offset("verbs");
    private static final long QP = offset("qp");
    private static final long ROUTE = offset("route");
    /** {@code struct rdma_addr}: the source address, then the destination, each a {@code sockaddr_storage}. */
    private static final long SRC = ROUTE;
    private static final long DST = ROUTE + 128;
    private static final int AF_INET = 2;
    private static final int SOCKADDR_IN = 16;
    private static final ValueLayout.OfShort NETWORK_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Private data a connect request carries at most (RDMA CM over InfiniBand and RoCE). */
    public static final int MAX_CONNECT_PRIVATE_DATA = 56;
    /** Private data an accept (REP) carries at most. */
    public static final int MAX_ACCEPT_PRIVATE_DATA = 196;
    /** Private data a reject carries at most. */
    public static final int MAX_REJECT_PRIVATE_DATA = 148;

    private final Librdmacm cm;
    private final MemorySegment id;
    private boolean closed;

    private CmId(Librdmacm cm, MemorySegment id) {
        this.cm = cm;
        this.id = id.reinterpret(CmLayouts.RDMA_CM_ID.byteSize());
    }

    /** A new id on {@code channel} for a reliable connection ({@code rdma_create_id}, {@code RDMA_PS_TCP}). */
    public static CmId create(CmEventChannel channel) {
        Librdmacm cm = channel.cm();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment out = call.allocate(ValueLayout.ADDRESS);
            MemorySegment state = Libibverbs.callState(call);
            int rc = (int) cm.createId.invokeExact(state, channel.segment(), out, MemorySegment.NULL, VerbsConstants.RDMA_PS_TCP);
            check(rc, state, "rdma_create_id", "the process may be out of memory or descriptors");
            return new CmId(cm, out.get(ValueLayout.ADDRESS, 0));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling rdma_create_id failed", t);
        }
    }

    /** The id of a connection request ({@link CmEvent#id()} of a {@code RDMA_CM_EVENT_CONNECT_REQUEST}). */
    public static CmId ofRequest(CmEventChannel channel, CmEvent request) {
        if (request.type() != VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST) {
            throw new IllegalArgumentException("not a connect request: " + request.typeName());
        }
        return new CmId(channel.cm(), MemorySegment.ofAddress(request.id()));
    }

    /** Its address, as events name it. */
    public long address() {
        return id.address();
    }

    /** Binds to a local address ({@code rdma_bind_addr}); port 0 picks a free one. */
    public void bind(InetSocketAddress address) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = Libibverbs.callState(call);
            int rc = (int) cm.bindAddr.invokeExact(state, id, sockaddr(call, address));
            check(rc, state, "rdma_bind_addr(" + address + ")", "the port is taken, or the address is not on an RDMA"
                    + " interface (ibv_devices, rdma link show)");
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling rdma_bind_addr failed", t);
        }
    }

    /** Listens for connection requests ({@code rdma_listen}). */
    public void listen(int backlog) {
        simple(cm.listen, "rdma_listen", backlog);
    }

    /** Resolves the address of the peer ({@code rdma_resolve_addr}); then {@code RDMA_CM_EVENT_ADDR_RESOLVED}. */
    public void resolveAddress(InetSocketAddress destination, int timeoutMillis) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = Libibverbs.callState(call);
            int rc = (int) cm.resolveAddr.invokeExact(state, id, MemorySegment.NULL, sockaddr(call, destination), timeoutMillis);
            check(rc, state, "rdma_resolve_addr(" + destination + ")", "check the address");
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling rdma_resolve_addr failed", t);
        }
    }

    /** Resolves the route ({@code rdma_resolve_route}); then {@code RDMA_CM_EVENT_ROUTE_RESOLVED}. */
    public void resolveRoute(int timeoutMillis) {
        simple(cm.resolveRoute, "rdma_resolve_route", timeoutMillis);
    }

    /** The device the id is bound or resolved to ({@code id->verbs}): allocate its domain and queues there. */
    public RdmaDevice device() {
        MemorySegment verbs = id.get(ValueLayout.ADDRESS, VERBS);
        if (verbs.address() == 0) {
            throw new IllegalStateException("the CM id has no device yet: bind it or resolve its address first");
        }
        return RdmaDevice.borrowed(cm.verbs, verbs.reinterpret(ResourceLayouts.IBV_CONTEXT.byteSize()));
    }

    /** Creates the id's queue pair ({@code rdma_create_qp}), in INIT; destroyed by its close ({@code rdma_destroy_qp}). */
    public RdmaQp createQp(RdmaPd pd, RdmaCq sendCq, RdmaCq recvCq, QpCapacities caps) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = Libibverbs.callState(call);
            int rc = (int) cm.createQp.invokeExact(state, id, pd.segment(), RdmaPd.initAttr(call, sendCq, recvCq, caps));
            check(rc, state, "rdma_create_qp(" + caps + ")", "the domain must be of the id's device; the device may support"
                    + " less (capabilities())");
            MemorySegment qp = id.get(ValueLayout.ADDRESS, QP).reinterpret(ResourceLayouts.IBV_QP.byteSize());
            return new RdmaQp(pd.device(), cm.verbs, qp, this::destroyQp);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling rdma_create_qp failed", t);
        }
    }

    private void destroyQp() {
        try {
            cm.destroyQp.invokeExact(id);
        } catch (Throwable t) {
            throw new IllegalStateException("calling rdma_destroy_qp failed", t);
        }
    }

    /**
     * Connects ({@code rdma_connect}) with {@code privateData}; then ESTABLISHED, REJECTED or UNREACHABLE.
     * {@code responderResources} and {@code initiatorDepth} are the READs each side lets the other have outstanding.
     */
    public void connect(byte[] privateData, int responderResources, int initiatorDepth) {
        connect(privateData, responderResources, initiatorDepth, 7);
    }

    /**
     * As {@link #connect(byte[], int, int)}, with {@code rnrRetryCount} (0..7, 7 retries forever): rdma_cm applies
     * the value of a connect to the passive side's queue pair and that of an accept to the active side's
     * (rdma_connect(3): "a send operation from the remote peer").
     */
    public void connect(byte[] privateData, int responderResources, int initiatorDepth, int rnrRetryCount) {
        checkPrivateData(privateData, MAX_CONNECT_PRIVATE_DATA, "connect");
        connectOrAccept(cm.connect, "rdma_connect", privateData, responderResources, initiatorDepth, rnrRetryCount);
    }

    /** Accepts a connection request ({@code rdma_accept}) with {@code privateData}; then ESTABLISHED on both sides. */
    public void accept(byte[] privateData, int responderResources, int initiatorDepth) {
        accept(privateData, responderResources, initiatorDepth, 7);
    }

    /** As {@link #accept(byte[], int, int)}, with {@code rnrRetryCount} as {@link #connect(byte[], int, int, int)} says. */
    public void accept(byte[] privateData, int responderResources, int initiatorDepth, int rnrRetryCount) {
        checkPrivateData(privateData, MAX_ACCEPT_PRIVATE_DATA, "accept");
        connectOrAccept(cm.accept, "rdma_accept", privateData, responderResources, initiatorDepth, rnrRetryCount);
    }

    /** Refuses a connection request ({@code rdma_reject}); the client gets REJECTED with {@code privateData}. */
    public void reject(byte[] privateData) {
        checkPrivateData(privateData, MAX_REJECT_PRIVATE_DATA, "reject");
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = Libibverbs.callState(call);
            MemorySegment data = call.allocateFrom(ValueLayout.JAVA_BYTE, privateData);
            int rc = (int) cm.reject.invokeExact(state, id, data, (byte) privateData.length);
            check(rc, state, "rdma_reject", "the request was already answered");
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling rdma_reject failed", t);
        }
    }

    /** Disconnects ({@code rdma_disconnect}); both sides get DISCONNECTED and their queue pairs go to ERR. */
    public void disconnect() {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = Libibverbs.callState(call);
            int rc = (int) cm.disconnect.invokeExact(state, id);
            check(rc, state, "rdma_disconnect", "the id is not connected");
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling rdma_disconnect failed", t);
        }
    }

    /** The local address (after bind or address resolution). */
    public InetSocketAddress localAddress() {
        return address(SRC);
    }

    /** The peer's address (after address resolution, or of a connection request). */
    public InetSocketAddress remoteAddress() {
        return address(DST);
    }

    /** Destroys the id ({@code rdma_destroy_id}); later calls do nothing. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            NativeCalls.destroy(cm.destroyId, id, "rdma_destroy_id", "cm id", "events of the id are not acknowledged");
        }
    }

    private void connectOrAccept(MethodHandle call, String name, byte[] privateData, int responderResources,
                                 int initiatorDepth, int rnrRetryCount) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment param = arena.allocate(CmLayouts.RDMA_CONN_PARAM);
            param.set(ValueLayout.ADDRESS, param("private_data"), arena.allocateFrom(ValueLayout.JAVA_BYTE, privateData));
            param.set(ValueLayout.JAVA_BYTE, param("private_data_len"), (byte) privateData.length);
            param.set(ValueLayout.JAVA_BYTE, param("responder_resources"), (byte) responderResources);
            param.set(ValueLayout.JAVA_BYTE, param("initiator_depth"), (byte) initiatorDepth);
            param.set(ValueLayout.JAVA_BYTE, param("retry_count"), (byte) 7);
            param.set(ValueLayout.JAVA_BYTE, param("rnr_retry_count"), (byte) rnrRetryCount);
            MemorySegment state = Libibverbs.callState(arena);
            int rc = (int) call.invokeExact(state, id, param);
            check(rc, state, name, "the id needs its queue pair first (createQp), and private data fits 56 bytes on a"
                    + " connect, 196 on an accept");
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling " + name + " failed", t);
        }
    }

    private void simple(MethodHandle call, String name, int arg) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Libibverbs.callState(arena);
            int rc = (int) call.invokeExact(state, id, arg);
            check(rc, state, name, "check the id's state");
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling " + name + " failed", t);
        }
    }

    private static void checkPrivateData(byte[] privateData, int max, String what) {
        if (privateData.length > max) {
            throw new IllegalArgumentException("a " + what + " carries at most " + max + " bytes of private data (RDMA CM over"
                    + " InfiniBand and RoCE), got " + privateData.length);
        }
    }

    private static void check(int rc, MemorySegment state, String call, String hint) {
        if (rc != 0) {
            throw new RdmaCoreUnavailableException(call + " failed with " + Errno.name(Libibverbs.errno(state)) + ": " + hint);
        }
    }

    private InetSocketAddress address(long at) {
        try {
            byte[] ip = id.asSlice(at + 4, 4).toArray(ValueLayout.JAVA_BYTE);
            int port = Short.toUnsignedInt(id.get(NETWORK_SHORT, at + 2));
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("an IPv4 address of 4 bytes was refused", e);
        }
    }

    /** A {@code struct sockaddr_in} for an IPv4 address. */
    private static MemorySegment sockaddr(Arena arena, InetSocketAddress address) {
        if (address.isUnresolved() || !(address.getAddress() instanceof Inet4Address)) {
            throw new IllegalArgumentException("the FFM provider connects over IPv4, got " + address);
        }
        MemorySegment sin = arena.allocate(SOCKADDR_IN, 4);
        sin.set(ValueLayout.JAVA_SHORT, 0, (short) AF_INET);
        sin.set(NETWORK_SHORT, 2, (short) address.getPort());
        MemorySegment.copy(address.getAddress().getAddress(), 0, sin, ValueLayout.JAVA_BYTE, 4, 4);
        return sin;
    }

    private static long offset(String field) {
        return Offsets.of(CmLayouts.RDMA_CM_ID, field);
    }

    private static long param(String field) {
        return Offsets.of(CmLayouts.RDMA_CONN_PARAM, field);
    }
}
