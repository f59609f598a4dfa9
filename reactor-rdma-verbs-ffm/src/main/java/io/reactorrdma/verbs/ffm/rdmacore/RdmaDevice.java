package io.reactorrdma.verbs.ffm.rdmacore;

import io.reactorrdma.verbs.ffm.abi.AttributeLayouts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/** An opened RDMA device (its {@code struct ibv_context}): what it can do, its ports. Not thread-safe; close once. */
public final class RdmaDevice implements AutoCloseable {

    private static final StructLayout DEVICE_ATTR = AttributeLayouts.IBV_DEVICE_ATTR;
    private static final StructLayout PORT_ATTR = AttributeLayouts.IBV_PORT_ATTR;

    private final Libibverbs lib;
    private final String name;
    private final MemorySegment context;
    private boolean closed;

    RdmaDevice(Libibverbs lib, String name, MemorySegment context) {
        this.lib = lib;
        this.name = name;
        this.context = context;
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
            return new RdmaPd(lib, name, pd);
        } catch (RdmaCoreUnavailableException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling ibv_alloc_pd failed", t);
        }
    }

    /** Closes the device ({@code ibv_close_device}); later calls do nothing. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            int rc = (int) lib.closeDevice.invokeExact(context);
            if (rc != 0) {
                throw new IllegalStateException("ibv_close_device(" + name + ") failed with " + Errno.name(rc)
                        + ": resources of the device were still open");
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling ibv_close_device failed", t);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("device " + name + " is closed");
        }
    }

    private static long offset(StructLayout layout, String field) {
        return layout.byteOffset(MemoryLayout.PathElement.groupElement(field));
    }

    private static int i32(MemorySegment s, StructLayout layout, String field) {
        return s.get(ValueLayout.JAVA_INT, offset(layout, field));
    }
}
