package io.reactorrdma.verbs.ffm.rdmacore;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
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
 * {@code libibverbs.so.1}, opened through FFM (no native code of ours): the device list, for now. Opened from a
 * given file (tests point it at an emulated rdma-core) or by its soname, as the dynamic linker finds it. The
 * library stays loaded as long as the arena it was opened in.
 */
public final class Libibverbs {

    /** The soname rdma-core installs ({@code libibverbs1} on Debian and Ubuntu, {@code libibverbs} on Fedora/RHEL). */
    public static final String SONAME = "libibverbs.so.1";
    /** errno when the kernel has no RDMA support (no {@code /sys/class/infiniband_verbs}). */
    static final int ENOSYS = 38;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    private static final VarHandle ERRNO = Linker.Option.captureStateLayout()
            .varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));

    private final MethodHandle getDeviceList;
    private final MethodHandle freeDeviceList;
    private final MethodHandle getDeviceName;

    private Libibverbs(SymbolLookup lib) {
        getDeviceList = LINKER.downcallHandle(find(lib, "ibv_get_device_list"),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS), CAPTURE_ERRNO);
        freeDeviceList = LINKER.downcallHandle(find(lib, "ibv_free_device_list"),
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
        getDeviceName = LINKER.downcallHandle(find(lib, "ibv_get_device_name"),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    }

    /**
     * Opens libibverbs: {@code file} when given, else {@link #SONAME} as the dynamic linker finds it.
     *
     * @throws RdmaCoreUnavailableException when the library cannot be opened or lacks a function
     */
    public static Libibverbs open(Optional<Path> file, Arena arena) {
        SymbolLookup lib;
        try {
            lib = file.isPresent() ? SymbolLookup.libraryLookup(file.get(), arena) : SymbolLookup.libraryLookup(SONAME, arena);
        } catch (IllegalArgumentException e) {
            throw new RdmaCoreUnavailableException("rdma-core's " + file.map(Path::toString).orElse(SONAME)
                    + " could not be loaded: install rdma-core (Debian/Ubuntu: apt-get install libibverbs1 ibverbs-providers"
                    + " librdmacm1; Fedora/RHEL: dnf install rdma-core libibverbs), or choose the shm provider", e);
        }
        return new Libibverbs(lib);
    }

    /**
     * The names of the RDMA devices rdma-core sees ({@code ibv_get_device_list}).
     *
     * @throws RdmaCoreUnavailableException when the kernel has no RDMA support or there is no device
     */
    public List<String> deviceNames() {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = call.allocate(Linker.Option.captureStateLayout());
            MemorySegment count = call.allocate(ValueLayout.JAVA_INT);
            MemorySegment list = (MemorySegment) getDeviceList.invokeExact(state, count);
            if (list.equals(MemorySegment.NULL)) {
                int errno = (int) ERRNO.get(state, 0L);
                throw new RdmaCoreUnavailableException(errno == ENOSYS
                        ? "rdma-core found no RDMA support in this kernel (ibv_get_device_list: ENOSYS): load the RDMA"
                                + " modules of the NIC (with ib_uverbs), or choose the shm provider on a host without RDMA"
                        : "ibv_get_device_list failed with errno " + errno + ": check that /dev/infiniband is readable by"
                                + " this user, or choose the shm provider");
            }
            try {
                int n = count.get(ValueLayout.JAVA_INT, 0);
                MemorySegment devices = list.reinterpret(ValueLayout.ADDRESS.byteSize() * n);
                List<String> names = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    MemorySegment name = (MemorySegment) getDeviceName.invokeExact(
                            devices.getAtIndex(ValueLayout.ADDRESS, i));
                    names.add(name.reinterpret(Long.MAX_VALUE).getString(0));
                }
                if (names.isEmpty()) {
                    throw new RdmaCoreUnavailableException("rdma-core sees no RDMA device: check `ibv_devices` and that the"
                            + " NIC's driver (mlx5_ib, irdma, bnxt_re, ...) is loaded, or choose the shm provider");
                }
                return names;
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
