package io.reactorrdma.verbs.ffm.rdmacore;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code libibverbs.so.1}, opened through FFM (no native code of ours): its device list and opening a device. Opened
 * from a given file (tests point it at an emulated rdma-core) or by its soname, as the dynamic linker finds it; it
 * stays loaded as long as the arena it was opened in. rdma-core's failures become {@link RdmaCoreUnavailableException}s
 * that say what to do.
 */
public final class Libibverbs {

    /** The soname rdma-core installs ({@code libibverbs1} on Debian and Ubuntu, {@code libibverbs} on Fedora/RHEL). */
    public static final String SONAME = "libibverbs.so.1";

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    private static final VarHandle ERRNO =
            Linker.Option.captureStateLayout().varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final String CHOOSE_SHM = "or choose the shm provider on a host without RDMA";

    private final MethodHandle getDeviceList;
    private final MethodHandle freeDeviceList;
    private final MethodHandle getDeviceName;
    private final MethodHandle openDevice;
    final MethodHandle closeDevice;
    final MethodHandle queryDevice;
    final MethodHandle queryPort;
    final MethodHandle allocPd;
    final MethodHandle deallocPd;
    final MethodHandle regMr;
    final MethodHandle deregMr;
    final MethodHandle createCompChannel;
    final MethodHandle destroyCompChannel;
    final MethodHandle createCq;
    final MethodHandle destroyCq;
    final MethodHandle getCqEvent;
    final MethodHandle ackCqEvents;
    final MethodHandle createQp;
    final MethodHandle destroyQp;
    final MethodHandle modifyQp;

    private Libibverbs(SymbolLookup lib) {
        ValueLayout a = ValueLayout.ADDRESS;
        getDeviceList = LINKER.downcallHandle(find(lib, "ibv_get_device_list"), FunctionDescriptor.of(a, a), CAPTURE_ERRNO);
        freeDeviceList = LINKER.downcallHandle(find(lib, "ibv_free_device_list"), FunctionDescriptor.ofVoid(a));
        getDeviceName = LINKER.downcallHandle(find(lib, "ibv_get_device_name"), FunctionDescriptor.of(a, a));
        openDevice = LINKER.downcallHandle(find(lib, "ibv_open_device"), FunctionDescriptor.of(a, a), CAPTURE_ERRNO);
        closeDevice = LINKER.downcallHandle(find(lib, "ibv_close_device"), FunctionDescriptor.of(ValueLayout.JAVA_INT, a));
        queryDevice = LINKER.downcallHandle(find(lib, "ibv_query_device"), FunctionDescriptor.of(ValueLayout.JAVA_INT, a, a));
        // The exported ibv_query_port (verbs.h wraps it in a macro) fills rdma-core's compat struct: the fields of
        // struct ibv_port_attr up to link_layer, all this provider reads.
        queryPort = LINKER.downcallHandle(find(lib, "ibv_query_port"),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, a, ValueLayout.JAVA_BYTE, a));
        allocPd = LINKER.downcallHandle(find(lib, "ibv_alloc_pd"), FunctionDescriptor.of(a, a), CAPTURE_ERRNO);
        deallocPd = LINKER.downcallHandle(find(lib, "ibv_dealloc_pd"), FunctionDescriptor.of(ValueLayout.JAVA_INT, a));
        // The exported ibv_reg_mr (verbs.h wraps it in a macro that picks it for the classic access flags).
        regMr = LINKER.downcallHandle(find(lib, "ibv_reg_mr"),
                FunctionDescriptor.of(a, a, a, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT), CAPTURE_ERRNO);
        deregMr = LINKER.downcallHandle(find(lib, "ibv_dereg_mr"), FunctionDescriptor.of(ValueLayout.JAVA_INT, a));
        ValueLayout i = ValueLayout.JAVA_INT;
        createCompChannel = LINKER.downcallHandle(find(lib, "ibv_create_comp_channel"), FunctionDescriptor.of(a, a),
                CAPTURE_ERRNO);
        destroyCompChannel = LINKER.downcallHandle(find(lib, "ibv_destroy_comp_channel"), FunctionDescriptor.of(i, a));
        createCq = LINKER.downcallHandle(find(lib, "ibv_create_cq"), FunctionDescriptor.of(a, a, i, a, a, i), CAPTURE_ERRNO);
        destroyCq = LINKER.downcallHandle(find(lib, "ibv_destroy_cq"), FunctionDescriptor.of(i, a));
        getCqEvent = LINKER.downcallHandle(find(lib, "ibv_get_cq_event"), FunctionDescriptor.of(i, a, a, a), CAPTURE_ERRNO);
        ackCqEvents = LINKER.downcallHandle(find(lib, "ibv_ack_cq_events"), FunctionDescriptor.ofVoid(a, i));
        createQp = LINKER.downcallHandle(find(lib, "ibv_create_qp"), FunctionDescriptor.of(a, a, a), CAPTURE_ERRNO);
        destroyQp = LINKER.downcallHandle(find(lib, "ibv_destroy_qp"), FunctionDescriptor.of(i, a));
        modifyQp = LINKER.downcallHandle(find(lib, "ibv_modify_qp"), FunctionDescriptor.of(i, a, a, i));
    }

    /**
     * A downcall to a function pointer of a device's {@code struct ibv_context_ops}, short and non-blocking (polling
     * a CQ, arming it, posting work requests): called without the thread-state transition of an ordinary downcall.
     */
    static MethodHandle dataPathCall(MemorySegment function, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(function, descriptor, Linker.Option.critical(false));
    }

    /** errno as a call with {@link #CAPTURE_ERRNO} left it in {@code state}. */
    public static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /** A segment for {@link #CAPTURE_ERRNO}'s state. */
    public static MemorySegment callState(Arena arena) {
        return arena.allocate(Linker.Option.captureStateLayout());
    }

    /**
     * Opens libibverbs: {@code file} when given, else {@link #SONAME} as the dynamic linker finds it.
     *
     * @throws RdmaCoreUnavailableException when the library cannot be opened or lacks a function
     */
    public static Libibverbs open(Optional<Path> file, Arena arena) {
        return new Libibverbs(NativeCalls.library(file, SONAME, arena, "install rdma-core (Debian/Ubuntu: apt-get install"
                + " libibverbs1 ibverbs-providers librdmacm1; Fedora/RHEL: dnf install rdma-core libibverbs), " + CHOOSE_SHM));
    }

    /**
     * The names of the RDMA devices rdma-core sees ({@code ibv_get_device_list}).
     *
     * @throws RdmaCoreUnavailableException when the kernel has no RDMA support or there is no device
     */
    public List<String> deviceNames() {
        List<String> names = new ArrayList<>();
        withDevices((name, device) -> {
            names.add(name);
            return false;
        });
        return names;
    }

    /**
     * Opens the device named {@code name} ({@code ibv_open_device}); close it when done.
     *
     * @throws RdmaCoreUnavailableException when there is no such device or it cannot be opened
     */
    public RdmaDevice openDevice(String name) {
        RdmaDevice[] opened = new RdmaDevice[1];
        List<String> seen = new ArrayList<>();
        withDevices((deviceName, device) -> {
            seen.add(deviceName);
            if (!deviceName.equals(name)) {
                return false;
            }
            try (Arena call = Arena.ofConfined()) {
                MemorySegment state = call.allocate(Linker.Option.captureStateLayout());
                MemorySegment context = (MemorySegment) openDevice.invokeExact(state, device);
                if (context.address() == 0) {
                    int errno = (int) ERRNO.get(state, 0L);
                    throw new RdmaCoreUnavailableException("ibv_open_device(" + name + ") failed with " + Errno.name(errno)
                            + (errno == Errno.EACCES || errno == Errno.EPERM
                            ? ": this user may not open /dev/infiniband/uverbs*; add it to the group owning them (often"
                                    + " 'rdma') or install rdma-core's udev rules"
                            : ": check the device with `ibv_devinfo -d " + name + "`"));
                }
                opened[0] = new RdmaDevice(this, name, context);
            } catch (RdmaCoreUnavailableException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException("calling ibv_open_device failed", t);
            }
            return true;
        });
        if (opened[0] == null) {
            throw new RdmaCoreUnavailableException("no RDMA device named " + name + "; rdma-core sees " + seen
                    + " (ibv_devices lists them): configure one of those");
        }
        return opened[0];
    }

    /** The name of the device a context was opened on ({@code context->device}). */
    String deviceNameOf(MemorySegment context) {
        try {
            MemorySegment device = context.get(ValueLayout.ADDRESS, 0); // struct ibv_context starts with its device
            MemorySegment name = (MemorySegment) getDeviceName.invokeExact(device);
            return name.reinterpret(Long.MAX_VALUE).getString(0);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling ibv_get_device_name failed", t);
        }
    }

    /** Something done with each device of the list, until it returns true. */
    private interface DeviceVisitor {
        boolean visit(String name, MemorySegment device);
    }

    private void withDevices(DeviceVisitor visitor) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = call.allocate(Linker.Option.captureStateLayout());
            MemorySegment count = call.allocate(ValueLayout.JAVA_INT);
            MemorySegment list = (MemorySegment) getDeviceList.invokeExact(state, count);
            if (list.address() == 0) {
                int errno = (int) ERRNO.get(state, 0L);
                throw new RdmaCoreUnavailableException(errno == Errno.ENOSYS
                        ? "rdma-core found no RDMA support in this kernel (ibv_get_device_list: ENOSYS): load the RDMA"
                                + " modules of the NIC (with ib_uverbs), " + CHOOSE_SHM
                        : "ibv_get_device_list failed with " + Errno.name(errno) + ": check that /dev/infiniband is readable"
                                + " by this user, " + CHOOSE_SHM);
            }
            try {
                int n = count.get(ValueLayout.JAVA_INT, 0);
                if (n == 0) {
                    throw new RdmaCoreUnavailableException("rdma-core sees no RDMA device: check `ibv_devices` and that the"
                            + " NIC's driver (mlx5_ib, irdma, bnxt_re, ...) is loaded, " + CHOOSE_SHM);
                }
                MemorySegment devices = list.reinterpret(ValueLayout.ADDRESS.byteSize() * n);
                for (int i = 0; i < n; i++) {
                    MemorySegment device = devices.getAtIndex(ValueLayout.ADDRESS, i);
                    MemorySegment name = (MemorySegment) getDeviceName.invokeExact(device);
                    if (visitor.visit(name.reinterpret(Long.MAX_VALUE).getString(0), device)) {
                        return;
                    }
                }
            } finally {
                freeDeviceList.invokeExact(list);
            }
        } catch (RdmaCoreUnavailableException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling libibverbs failed", t);
        }
    }

    private static MemorySegment find(SymbolLookup lib, String name) {
        return lib.find(name).orElseThrow(() -> new RdmaCoreUnavailableException("the loaded libibverbs has no " + name
                + ": install rdma-core 28 or later"));
    }
}
