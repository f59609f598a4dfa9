package io.reactorrdma.verbs.ffm.abi;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.ValueLayout;

/**
 * The C types of rdma-core's structs on LP64 Linux, as FFM layouts: a field is one of these with its
 * C name. Padding is explicit (FFM does not insert it), so every struct reads as the compiler lays it
 * out; the layout test checks each field against the headers.
 */
final class CTypes {

    private CTypes() {
    }

    /** {@code uint8_t} (also {@code char}). */
    static MemoryLayout u8(String name) {
        return ValueLayout.JAVA_BYTE.withName(name);
    }

    /** {@code uint16_t}. */
    static MemoryLayout u16(String name) {
        return ValueLayout.JAVA_SHORT.withName(name);
    }

    /** {@code int}, {@code unsigned int}, {@code uint32_t}, {@code __be32} and enums (all 4 bytes here). */
    static MemoryLayout i32(String name) {
        return ValueLayout.JAVA_INT.withName(name);
    }

    /** {@code uint64_t}, {@code __be64}, {@code size_t}. */
    static MemoryLayout u64(String name) {
        return ValueLayout.JAVA_LONG.withName(name);
    }

    /** A pointer: to a struct, to data, or to a function. */
    static MemoryLayout ptr(String name) {
        return ValueLayout.ADDRESS.withName(name);
    }

    /** Bytes the compiler inserts to align the next field or to round the struct's size. */
    static MemoryLayout pad(long bytes) {
        return MemoryLayout.paddingLayout(bytes);
    }

    /**
     * A member this provider never reads, of a size and alignment the headers decide (a {@code pthread_mutex_t}, a
     * {@code struct rdma_route}): declared by size so the fields after it land where the compiler puts them.
     */
    static MemoryLayout opaque(String name, long bytes) {
        return MemoryLayout.sequenceLayout(bytes / 8, ValueLayout.JAVA_LONG).withName(name);
    }

    /** {@code char name[bytes]}. */
    static MemoryLayout chars(String name, long bytes) {
        return MemoryLayout.sequenceLayout(bytes, ValueLayout.JAVA_BYTE).withName(name);
    }
}
