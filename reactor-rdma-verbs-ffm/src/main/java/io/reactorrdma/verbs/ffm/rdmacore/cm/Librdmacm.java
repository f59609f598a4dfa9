package io.reactorrdma.verbs.ffm.rdmacore.cm;

import io.reactorrdma.verbs.ffm.abi.CmLayouts;
import io.reactorrdma.verbs.ffm.rdmacore.Errno;
import io.reactorrdma.verbs.ffm.rdmacore.Libibverbs;
import io.reactorrdma.verbs.ffm.rdmacore.NativeCalls;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaCoreUnavailableException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code librdmacm.so.1}, rdma-core's connection manager, opened through FFM: event channels and CM ids. Opened from
 * a given file (tests point it at the emulated rdma-core) or by its soname; it stays loaded as long as its arena.
 */
public final class Librdmacm {

    /** The soname rdma-core installs ({@code librdmacm1} on Debian and Ubuntu, {@code librdmacm} on Fedora/RHEL). */
    public static final String SONAME = "librdmacm.so.1";

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    final Libibverbs verbs;
    final MethodHandle createEventChannel;
    final MethodHandle destroyEventChannel;
    final MethodHandle getCmEvent;
    final MethodHandle ackCmEvent;
    final MethodHandle createId;
    final MethodHandle destroyId;
    final MethodHandle bindAddr;
    final MethodHandle listen;
    final MethodHandle resolveAddr;
    final MethodHandle resolveRoute;
    final MethodHandle createQp;
    final MethodHandle destroyQp;
    final MethodHandle connect;
    final MethodHandle accept;
    final MethodHandle reject;
    final MethodHandle disconnect;

    private Librdmacm(SymbolLookup lib, Libibverbs verbs) {
        this.verbs = verbs;
        ValueLayout a = ValueLayout.ADDRESS;
        ValueLayout i = ValueLayout.JAVA_INT;
        createEventChannel = call(lib, "rdma_create_event_channel", FunctionDescriptor.of(a));
        destroyEventChannel = LINKER.downcallHandle(find(lib, "rdma_destroy_event_channel"), FunctionDescriptor.ofVoid(a));
        getCmEvent = call(lib, "rdma_get_cm_event", FunctionDescriptor.of(i, a, a));
        ackCmEvent = LINKER.downcallHandle(find(lib, "rdma_ack_cm_event"), FunctionDescriptor.of(i, a));
        createId = call(lib, "rdma_create_id", FunctionDescriptor.of(i, a, a, a, i));
        destroyId = LINKER.downcallHandle(find(lib, "rdma_destroy_id"), FunctionDescriptor.of(i, a));
        bindAddr = call(lib, "rdma_bind_addr", FunctionDescriptor.of(i, a, a));
        listen = call(lib, "rdma_listen", FunctionDescriptor.of(i, a, i));
        resolveAddr = call(lib, "rdma_resolve_addr", FunctionDescriptor.of(i, a, a, a, i));
        resolveRoute = call(lib, "rdma_resolve_route", FunctionDescriptor.of(i, a, i));
        createQp = call(lib, "rdma_create_qp", FunctionDescriptor.of(i, a, a, a));
        destroyQp = LINKER.downcallHandle(find(lib, "rdma_destroy_qp"), FunctionDescriptor.ofVoid(a));
        connect = call(lib, "rdma_connect", FunctionDescriptor.of(i, a, a));
        accept = call(lib, "rdma_accept", FunctionDescriptor.of(i, a, a));
        reject = call(lib, "rdma_reject", FunctionDescriptor.of(i, a, a, ValueLayout.JAVA_BYTE));
        disconnect = call(lib, "rdma_disconnect", FunctionDescriptor.of(i, a));
    }

    /**
     * Opens librdmacm: {@code file} when given, else {@link #SONAME}; {@code verbs} is the libibverbs it works with.
     *
     * @throws RdmaCoreUnavailableException when the library cannot be opened or lacks a function
     */
    public static Librdmacm open(Optional<Path> file, Libibverbs verbs, Arena arena) {
        return new Librdmacm(NativeCalls.library(file, SONAME, arena, "install rdma-core's connection manager"
                + " (Debian/Ubuntu: apt-get install librdmacm1; Fedora/RHEL: dnf install librdmacm), or choose the shm provider"
                + " on a host without RDMA"), verbs);
    }

    /** Creates an event channel ({@code rdma_create_event_channel}): the descriptor the CM thread blocks on. */
    public CmEventChannel createEventChannel() {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = Libibverbs.callState(call);
            MemorySegment channel = (MemorySegment) createEventChannel.invokeExact(state);
            if (channel.address() == 0) {
                throw new RdmaCoreUnavailableException("rdma_create_event_channel failed with " + Errno.name(Libibverbs.errno(state))
                        + ": /dev/infiniband/rdma_cm is missing or not accessible (modprobe rdma_ucm; check its permissions)");
            }
            return new CmEventChannel(this, channel.reinterpret(CmLayouts.RDMA_EVENT_CHANNEL.byteSize()));
        } catch (RdmaCoreUnavailableException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling rdma_create_event_channel failed", t);
        }
    }

    /** A downcall that captures errno (librdmacm's functions return -1 and set it). */
    private static MethodHandle call(SymbolLookup lib, String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(find(lib, name), descriptor, CAPTURE_ERRNO);
    }

    private static MemorySegment find(SymbolLookup lib, String name) {
        return lib.find(name).orElseThrow(() -> new RdmaCoreUnavailableException("the loaded librdmacm has no " + name
                + ": install rdma-core 28 or later"));
    }
}
