package io.reactorrdma.verbs.ffm.rdmacore;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Optional;

/** What the verbs objects share around their downcalls: loading a library, destroying an object, work-request chains. */
public final class NativeCalls {

    private NativeCalls() {
    }

    /**
     * Calls {@code destroy(object)}, an rdma-core function that returns 0 or an errno ({@code ibv_dereg_mr},
     * {@code ibv_destroy_cq}, ...).
     *
     * @throws IllegalStateException with {@code whyNonZero} when it refuses
     */
    public static void destroy(MethodHandle destroy, MemorySegment object, String call, String device, String whyNonZero) {
        int rc;
        try {
            rc = (int) destroy.invokeExact(object);
        } catch (Throwable t) {
            throw new IllegalStateException("calling " + call + " failed", t);
        }
        if (rc != 0) {
            throw new IllegalStateException(call + "(" + device + ") failed with " + Errno.name(rc) + ": " + whyNonZero);
        }
    }

    /**
     * Opens an rdma-core library: {@code file} when given (tests point at the emulation), else {@code soname} as the
     * dynamic linker finds it; it stays loaded as long as {@code arena}.
     *
     * @throws RdmaCoreUnavailableException naming the library and {@code whatToDo} when it cannot be loaded
     */
    public static SymbolLookup library(Optional<Path> file, String soname, Arena arena, String whatToDo) {
        try {
            return file.isPresent() ? SymbolLookup.libraryLookup(file.get(), arena) : SymbolLookup.libraryLookup(soname, arena);
        } catch (IllegalArgumentException e) {
            throw new RdmaCoreUnavailableException("rdma-core's " + file.map(Path::toString).orElse(soname) + " could not be loaded: "
                    + whatToDo, e);
        }
    }

    /** Which request of a chain of {@code capacity} requests of {@code size} bytes at {@code wrs} {@code address} is; -1 for none. */
    static int indexOf(MemorySegment wrs, long size, int capacity, long address) {
        if (address < wrs.address() || address >= wrs.address() + capacity * size) {
            return -1; // the device named none of this chain's requests
        }
        return (int) ((address - wrs.address()) / size);
    }

    /**
     * Links requests 0..n-1 of an array of work requests ({@code struct ibv_send_wr} or {@code ibv_recv_wr}, each
     * {@code size} bytes, their {@code next} pointer at {@code nextOffset}) and returns the array, for a post. The
     * pointers are written as longs (LP64): no segment object per post.
     */
    static MemorySegment link(MemorySegment wrs, long size, long nextOffset, int n, int capacity) {
        if (n < 1 || n > capacity) {
            throw new IllegalArgumentException("posting " + n + " work requests of a chain of " + capacity);
        }
        for (int i = 0; i < n; i++) {
            wrs.set(ValueLayout.JAVA_LONG, i * size + nextOffset, i + 1 < n ? wrs.address() + (i + 1) * size : 0L);
        }
        return wrs;
    }
}
