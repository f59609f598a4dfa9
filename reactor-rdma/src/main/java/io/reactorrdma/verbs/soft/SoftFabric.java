package io.reactorrdma.verbs.soft;

import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.soft.shared.WakeSocket;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * What differs between the soft provider's two fabrics: where memory lives (direct buffers or
 * mapped files), how peers find each other and each other's memory, and how the provider thread
 * learns of peer events. Everything else — queue pairs, completion queues, the verbs semantics —
 * is shared code that works on the {@link io.reactorrdma.verbs.soft.shared.QpLayout} /
 * {@link io.reactorrdma.verbs.soft.shared.CqLayout} structures either way.
 * One instance per context.
 */
abstract class SoftFabric {

    /** {@code loopback} or {@code shm}. */
    abstract String name();

    /** Memory for a queue pair's or completion queue's structure, zeroed. {@code name} is unique per context. */
    abstract ByteBuffer allocateStructure(String name, int size);

    /** Gives back what {@link #allocateStructure} returned (deletes the backing file). */
    abstract void releaseStructure(String name);

    /** Memory for a region about to be registered under {@code key}, zeroed. */
    abstract ByteBuffer allocateRegionMemory(int key, int size);

    /** Makes the region visible to peers (after its memory and fields are set). */
    abstract void publishRegion(SoftMemoryRegion region);

    /** Makes the region invisible to peers and gives its memory back. */
    abstract void unpublishRegion(SoftMemoryRegion region);

    /**
     * A region the application closed ({@link SoftMemoryRegion#close}, after
     * {@link #unpublishRegion}): its memory may be unmapped as soon as no send queue of this
     * context can still be copying from it. The loopback fabric's memory is plain direct buffers
     * (or the caller's) and stays with the GC.
     */
    void releaseRegionMemory(ByteBuffer memory) {
    }

    /**
     * The wake-up socket of completion queue {@code cqNumber}, in which its blocked poller waits
     * for peers in other processes; null where the poller parks instead (loopback: peers unpark
     * it directly).
     */
    WakeSocket openWakeSocket(int cqNumber) {
        return null;
    }

    /** Closes what {@link #openWakeSocket} returned (its completion queue closed). */
    void closeWakeSocket(WakeSocket socket) {
        socket.close();
    }

    abstract CmListener listen(InetSocketAddress address, int backlog);

    abstract CmConnection connect(InetSocketAddress address, SoftQueuePair qp, ByteBuffer privateData, Duration timeout);

    /** Provider thread: wait up to {@code nanos} for peer events, handling those that come. */
    abstract void awaitEvents(long nanos);

    /** Wakes the provider thread out of {@link #awaitEvents}. */
    abstract void wakeProviderThread();

    /** Test hook: the context disappears as a killed process would, telling no peer. */
    abstract void vanish();

    /** Releases the fabric's resources (files, sockets). */
    abstract void close();
}
