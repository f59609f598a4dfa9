package io.reactorrdma.perf.floor;

import io.reactorrdma.perf.cli.Log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;

/**
 * Two counters in a memory-mapped file, each on its own cache line: the client stores {@code ping},
 * the server answers by storing the same value in {@code pong}. Release stores and acquire loads
 * through a byte-buffer view VarHandle: the least any shared-memory transport must do per message.
 */
public final class ShmFloorChannel implements AutoCloseable {

    /** Written by the client to end the server. */
    static final long STOP = -1;

    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final int PING = 0;
    /** Two cache lines apart (adjacent-line prefetch pairs lines), so the two writers never share one. */
    private static final int PONG = 128;
    private static final int FILE_SIZE = 4096;

    private final FileChannel file;
    /** The mapping, typed as the VarHandle's coordinate so that every access is an exact invocation. */
    private final ByteBuffer memory;

    private ShmFloorChannel(FileChannel file, ByteBuffer memory) {
        this.file = file;
        this.memory = memory;
    }

    /** A fresh file for one run, under /dev/shm where it exists (tmpfs: the mapping is plain memory). */
    public static Path newFile() {
        Path dir = Paths.get("/dev/shm");
        if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
            dir = Paths.get(System.getProperty("java.io.tmpdir"));
            Log.info("shm-floor: /dev/shm is not usable; mapping a file in " + dir + " instead");
        }
        return dir.resolve("reactor-rdma-perf-" + ProcessHandle.current().pid() + "-" + Long.toHexString(System.nanoTime()) + ".floor");
    }

    /** Creates (client) or opens (server) the file and maps it. */
    public static ShmFloorChannel map(Path path, boolean create) {
        try {
            FileChannel ch = create
                    ? FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)
                    : FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
            try {
                MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, FILE_SIZE);
                return new ShmFloorChannel(ch, m);
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot map " + path + ": " + e.getMessage(), e);
        }
    }

    void ping(long value) {
        LONGS.setRelease(memory, PING, value);
    }

    long readPing() {
        return (long) LONGS.getAcquire(memory, PING);
    }

    void pong(long value) {
        LONGS.setRelease(memory, PONG, value);
    }

    long readPong() {
        return (long) LONGS.getAcquire(memory, PONG);
    }

    @Override
    public void close() {
        try {
            file.close();
        } catch (IOException e) {
            // nothing left to do
        }
    }
}
