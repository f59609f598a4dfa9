package io.reactorrdma.verbs.soft.shared;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;

/**
 * Ordered and atomic access to direct or memory-mapped buffers through VarHandles (no Unsafe, no
 * JVM flags), and the creation, mapping and unmapping of the files that back shared structures.
 * Every offset passed here must be naturally aligned; the descriptor classes guarantee it.
 */
public final class SharedMemory {

    static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    private SharedMemory() {
    }

    public static long getLongAcquire(ByteBuffer b, int offset) {
        return (long) LONG.getAcquire(b, offset);
    }

    public static void putLongRelease(ByteBuffer b, int offset, long value) {
        LONG.setRelease(b, offset, value);
    }

    public static long compareAndExchangeLong(ByteBuffer b, int offset, long expected, long value) {
        return (long) LONG.compareAndExchange(b, offset, expected, value);
    }

    public static long getAndAddLong(ByteBuffer b, int offset, long delta) {
        return (long) LONG.getAndAdd(b, offset, delta);
    }

    public static int getAndAddInt(ByteBuffer b, int offset, int delta) {
        return (int) INT.getAndAdd(b, offset, delta);
    }

    public static int getIntAcquire(ByteBuffer b, int offset) {
        return (int) INT.getAcquire(b, offset);
    }

    public static int getIntVolatile(ByteBuffer b, int offset) {
        return (int) INT.getVolatile(b, offset);
    }

    public static void putIntRelease(ByteBuffer b, int offset, int value) {
        INT.setRelease(b, offset, value);
    }

    public static void putIntVolatile(ByteBuffer b, int offset, int value) {
        INT.setVolatile(b, offset, value);
    }

    /**
     * A full fence: no load after it is performed before a store ahead of it is visible. The
     * arm/publish handshake needs it on both sides: each side stores its own flag (armed, or
     * completion published) and then loads the other's. Release stores and acquire/volatile loads
     * alone let a store wait in the CPU's store buffer while the following load already ran
     * (store-load reordering: x86 does it, and the JMM allows it), so both sides could read the
     * other's old value — the publisher "not armed", the waiter "nothing to poll" — and the waiter
     * would sleep with a completion pending.
     */
    public static void fullFence() {
        VarHandle.fullFence();
    }

    public static boolean compareAndSetInt(ByteBuffer b, int offset, int expected, int value) {
        return INT.compareAndSet(b, offset, expected, value);
    }

    /** A zeroed direct buffer in native byte order (the loopback fabric's memory). */
    public static ByteBuffer allocateDirect(int size) {
        return ByteBuffer.allocateDirect(size).order(ByteOrder.nativeOrder());
    }

    /** Zeros written to preallocate files; only ever read (through duplicates). */
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(1 << 20);

    /**
     * Creates {@code file} (mode 0600, must not exist) of {@code size} bytes, every block
     * allocated, and maps it read-write. Writing the blocks (the JDK has no posix_fallocate; a
     * plain set-length leaves a sparse file) means a full tmpfs fails here, with an IOException,
     * instead of raising SIGBUS when some process first touches a page. The file is zero-filled.
     * On failure the file is gone.
     */
    static MappedByteBuffer createAndMap(Path file, int size) throws IOException {
        FileChannel ch;
        try {
            ch = FileChannel.open(file, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE),
                    PosixFilePermissions.asFileAttribute(ShmDirectory.PRIVATE_FILE));
        } catch (FileAlreadyExistsException e) {
            throw new IOException("shared-memory file " + file + " already exists; another process uses the same name", e);
        }
        boolean done = false;
        try (ch) {
            preallocate(ch, size);
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
            map.order(ByteOrder.nativeOrder());
            done = true;
            return map;
        } finally {
            if (!done) {
                deleteQuietly(file);
            }
        }
    }

    private static void preallocate(FileChannel ch, int size) throws IOException {
        ByteBuffer zeros = ZEROS.duplicate();
        long position = 0;
        while (position < size) {
            zeros.clear().limit((int) Math.min(zeros.capacity(), size - position));
            while (zeros.hasRemaining()) {
                position += ch.write(zeros, position);
            }
        }
    }

    /**
     * Maps the first {@code size} bytes of an existing file read-write; fails if the file is
     * shorter, so that no access through the mapping can fault past its end.
     */
    public static MappedByteBuffer mapExisting(Path file, int size) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            checkOwnedBySelf(file);
            long actual = ch.size();
            if (actual < size) {
                throw new IOException("shared-memory file " + file + " has " + actual + " bytes, expected at least " + size);
            }
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
            map.order(ByteOrder.nativeOrder());
            return map;
        }
    }

    /**
     * A peer's file must be a regular file of our own uid: the private directory already
     * guarantees it (only this uid and root can create files there); this re-check makes a
     * swapped-in file of another owner an error instead of shared memory.
     */
    static void checkOwnedBySelf(Path file) throws IOException {
        PosixFileAttributes attrs = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        int owner = ShmDirectory.ownerUid(file);
        int self = ShmDirectory.processUid();
        if (!attrs.isRegularFile() || owner != self) {
            throw new IOException("shared-memory file " + file + " is " + (attrs.isRegularFile() ? "owned by uid " + owner
                    + ", not by this process's uid " + self : "not a regular file") + "; refusing to map it");
        }
    }

    /**
     * {@code sun.misc.Unsafe.invokeCleaner}, the JDK's one way to unmap a mapping now rather than
     * when the GC finds its buffer unreachable (which may be never for a long-lived, quiet heap);
     * null where the JDK does not offer it, and mappings then wait for the GC.
     */
    private static final MethodHandle INVOKE_CLEANER = findInvokeCleaner();

    private static MethodHandle findInvokeCleaner() {
        try {
            Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
            Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
            theUnsafe.setAccessible(true);
            return MethodHandles.lookup().findVirtual(unsafeClass, "invokeCleaner", MethodType.methodType(void.class, ByteBuffer.class))
                    .bindTo(theUnsafe.get(null));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Unmaps {@code mapping} (as returned by {@link #createAndMap} or {@link #mapExisting}, not a
     * duplicate) at once, so that the pages of its unlinked file go back to the tmpfs. The caller
     * guarantees that no thread touches the mapping any more: an access after this is a crash.
     * Returns whether it was unmapped now (false: the GC will).
     */
    public static boolean unmap(ByteBuffer mapping) {
        if (INVOKE_CLEANER == null || mapping == null || !mapping.isDirect()) {
            return false;
        }
        try {
            INVOKE_CLEANER.invokeExact(mapping);
            return true;
        } catch (Throwable e) {
            return false;
        }
    }

    public static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // best effort: the next start reclaims files of dead contexts
        }
    }

    /** Bytes of a cache line on the hosts this runs on (x86-64, and the usual arm64 cores). */
    static final int CACHE_LINE = 64;

    /** Rounds up to a multiple of 64 (a cache line), so that shared fields written by different sides never share one. */
    static int alignToCacheLine(int n) {
        return (n + CACHE_LINE - 1) & ~(CACHE_LINE - 1);
    }
}
