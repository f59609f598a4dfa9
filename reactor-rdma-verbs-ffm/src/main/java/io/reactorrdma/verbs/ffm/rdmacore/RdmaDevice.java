package io.reactorrdma.verbs.ffm.rdmacore;

import io.reactorrdma.verbs.ffm.abi.AttributeLayouts;
import io.reactorrdma.verbs.ffm.abi.Offsets;
import io.reactorrdma.verbs.ffm.abi.ResourceLayouts;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/** An opened RDMA device (its {@code struct ibv_context}): what it can do, its ports. Not thread-safe; close once. */
public final class RdmaDevice implements AutoCloseable {

    private static final StructLayout DEVICE_ATTR = AttributeLayouts.IBV_DEVICE_ATTR;
    private static final StructLayout PORT_ATTR = AttributeLayouts.IBV_PORT_ATTR;

    private final Libibverbs lib;
    private final String name;
    private final MemorySegment context;
    /** {@code context->ops.poll_cq(cq, num_entries, wc)}: verbs.h's inline {@code ibv_poll_cq}. */
    final MethodHandle pollCq;
    /** {@code context->ops.req_notify_cq(cq, solicited_only)}: verbs.h's inline {@code ibv_req_notify_cq}. */
    final MethodHandle reqNotifyCq;
    /** {@code context->ops.post_send(qp, wr, bad_wr)}: verbs.h's inline {@code ibv_post_send}. */
    final MethodHandle postSend;
    /** {@code context->ops.post_recv(qp, wr, bad_wr)}: verbs.h's inline {@code ibv_post_recv}. */
    final MethodHandle postRecv;
    /** Whether closing it closes the device: false for the context of a CM id, which librdmacm owns. */
    private final boolean owned;
    private boolean closed;

    RdmaDevice(Libibverbs lib, String name, MemorySegment context) {
        this(lib, name, context, true);
    }

    /** The device of a CM id's context ({@code id->verbs}), which librdmacm opened and closes. */
    public static RdmaDevice borrowed(Libibverbs lib, MemorySegment context) {
        return new RdmaDevice(lib, lib.deviceNameOf(context), context, false);
    }

    private RdmaDevice(Libibverbs lib, String name, MemorySegment context, boolean owned) {
        this.lib = lib;
        this.owned = owned;
        this.name = name;
        this.context = context.reinterpret(ResourceLayouts.IBV_CONTEXT.byteSize());
        ValueLayout a = ValueLayout.ADDRESS;
        ValueLayout i = ValueLayout.JAVA_INT;
        pollCq = Libibverbs.dataPathCall(op("poll_cq"), FunctionDescriptor.of(i, a, i, a));
        reqNotifyCq = Libibverbs.dataPathCall(op("req_notify_cq"), FunctionDescriptor.of(i, a, i));
        postSend = Libibverbs.dataPathCall(op("post_send"), FunctionDescriptor.of(i, a, a, a));
        postRecv = Libibverbs.dataPathCall(op("post_recv"), FunctionDescriptor.of(i, a, a, a));
    }

    /** The function pointer {@code op} of the context's operation table. */
    private MemorySegment op(String op) {
        MemorySegment function = context.get(ValueLayout.ADDRESS, Offsets.of(ResourceLayouts.IBV_CONTEXT, "ops", op));
        if (function.address() == 0) {
            throw new RdmaCoreUnavailableException("the driver of " + name + " has no " + op + " in its operation table:"
                    + " its rdma-core provider library (ibverbs-providers) may be too old or broken");
        }
        return function;
    }

    /** The address of its {@code struct ibv_context}: two handles of one opened device have the same. */
    public long contextAddress() {
        return context.address();
    }

    public String name() {
        return name;
    }

    /** What the device supports ({@code ibv_query_device}). */
    public DeviceCapabilities capabilities() {
        checkOpen();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = call.allocate(DEVICE_ATTR);
            int rc = (int) lib.queryDevice.invokeExact(context, attr);
            if (rc != 0) {
                throw new RdmaCoreUnavailableException("ibv_query_device(" + name + ") failed with " + Errno.name(rc)
                        + ": check the device with `ibv_devinfo -d " + name + "`");
            }
            return new DeviceCapabilities(name, attr.getString(offset(DEVICE_ATTR, "fw_ver")),
                    attr.get(ValueLayout.JAVA_LONG, offset(DEVICE_ATTR, "max_mr_size")), i32(attr, DEVICE_ATTR, "max_qp"),
                    i32(attr, DEVICE_ATTR, "max_qp_wr"), i32(attr, DEVICE_ATTR, "max_sge"), i32(attr, DEVICE_ATTR, "max_cqe"),
                    i32(attr, DEVICE_ATTR, "max_mr"), i32(attr, DEVICE_ATTR, "max_qp_rd_atom"),
                    i32(attr, DEVICE_ATTR, "max_qp_init_rd_atom"),
                    Byte.toUnsignedInt(attr.get(ValueLayout.JAVA_BYTE, offset(DEVICE_ATTR, "phys_port_cnt"))));
        } catch (RdmaCoreUnavailableException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling ibv_query_device failed", t);
        }
    }

    /** One port's state ({@code ibv_query_port}); ports are numbered from 1. */
    public PortAttributes port(int port) {
        checkOpen();
        if (port < 1 || port > 255) {
            throw new IllegalArgumentException("port numbers run from 1 to 255, got " + port);
        }
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = call.allocate(PORT_ATTR); // zeroed: the compat struct rdma-core fills is shorter
            int rc = (int) lib.queryPort.invokeExact(context, (byte) port, attr);
            if (rc != 0) {
                throw new RdmaCoreUnavailableException("ibv_query_port(" + name + ", " + port + ") failed with "
                        + Errno.name(rc) + ": " + name + " may have fewer ports (`ibv_devinfo -d " + name + "`)");
            }
            return new PortAttributes(port, i32(attr, PORT_ATTR, "state"), i32(attr, PORT_ATTR, "active_mtu"),
                    i32(attr, PORT_ATTR, "gid_tbl_len"),
                    Byte.toUnsignedInt(attr.get(ValueLayout.JAVA_BYTE, offset(PORT_ATTR, "link_layer"))));
        } catch (RdmaCoreUnavailableException | Error | IllegalArgumentException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling ibv_query_port failed", t);
        }
    }

    /**
     * Allocates a protection domain ({@code ibv_alloc_pd}); close it before the device.
     *
     * @throws RdmaCoreUnavailableException when the device refuses
     */
    public RdmaPd allocatePd() {
        checkOpen();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = Libibverbs.callState(call);
            MemorySegment pd = (MemorySegment) lib.allocPd.invokeExact(state, context);
            if (pd.address() == 0) {
                throw new RdmaCoreUnavailableException("ibv_alloc_pd(" + name + ") failed with "
                        + Errno.name(Libibverbs.errno(state)) + ": the device ran out of protection domains or memory");
            }
            return new RdmaPd(this, lib, pd);
        } catch (RdmaCoreUnavailableException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling ibv_alloc_pd failed", t);
        }
    }

    /**
     * Creates a completion channel ({@code ibv_create_comp_channel}): the descriptor a thread blocks on for the events
     * of the completion queues bound to it.
     */
    public RdmaCompletionChannel createCompletionChannel() {
        checkOpen();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = Libibverbs.callState(call);
            MemorySegment channel = (MemorySegment) lib.createCompChannel.invokeExact(state, context);
            if (channel.address() == 0) {
                throw new RdmaCoreUnavailableException("ibv_create_comp_channel(" + name + ") failed with "
                        + Errno.name(Libibverbs.errno(state)) + ": the process may be out of file descriptors (ulimit -n)");
            }
            return new RdmaCompletionChannel(lib, name, channel.reinterpret(ResourceLayouts.IBV_COMP_CHANNEL.byteSize()));
        } catch (RdmaCoreUnavailableException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling ibv_create_comp_channel failed", t);
        }
    }

    /**
     * Creates a completion queue of at least {@code entries} entries whose events go to {@code channel}
     * ({@code ibv_create_cq}).
     */
    public RdmaCq createCq(int entries, RdmaCompletionChannel channel) {
        checkOpen();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = Libibverbs.callState(call);
            MemorySegment cq = (MemorySegment) lib.createCq.invokeExact(state, context, entries, MemorySegment.NULL,
                    channel.segment(), 0);
            if (cq.address() == 0) {
                int errno = Libibverbs.errno(state);
                throw new RdmaCoreUnavailableException("ibv_create_cq(" + name + ", " + entries + " entries) failed with "
                        + Errno.name(errno) + (errno == Errno.EINVAL ? ": the device holds at most max_cqe entries per CQ"
                        + " (see capabilities())" : ": the device or the memlock limit ran out"));
            }
            return new RdmaCq(this, lib, cq.reinterpret(ResourceLayouts.IBV_CQ.byteSize()));
        } catch (RdmaCoreUnavailableException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling ibv_create_cq failed", t);
        }
    }

    /** Closes the device ({@code ibv_close_device}; a CM id's device stays open); later calls do nothing. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            if (owned) {
                NativeCalls.destroy(lib.closeDevice, context, "ibv_close_device", name, "resources of the device were still open");
            }
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("device " + name + " is closed");
        }
    }

    private static long offset(StructLayout layout, String field) {
        return Offsets.of(layout, field);
    }

    private static int i32(MemorySegment s, StructLayout layout, String field) {
        return s.get(ValueLayout.JAVA_INT, offset(layout, field));
    }
}
