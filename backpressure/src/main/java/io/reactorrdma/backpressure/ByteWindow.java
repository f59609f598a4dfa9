package io.reactorrdma.backpressure;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The per-engine send window (paper §6.3): a bound on bytes posted and not yet
 * completed. Fragments wait while it is full, which limits how much one engine injects into the
 * fabric during an incast. It is separate from receive credits, which protect the peer's receive
 * queue ({@link CreditCounter}).
 *
 * <p>{@link #tryAcquire(long)} takes room for a fragment before it is posted;
 * {@link #release(long)} gives it back when its completion arrives (a signaled completion frees a
 * whole batch, so the engine releases the batch's bytes at once).
 *
 * <p><b>The oversize case.</b> A single request larger than the whole window is granted when the
 * window is empty — otherwise it could never go — and then nothing else is granted until it
 * completes. So bytes in flight never exceed {@link #capacity()}, except while exactly one
 * oversize request is alone in flight. (The engine fragments messages to at most the fragment size,
 * normally well below the window, so this is the corner of a window configured smaller than a
 * fragment.)
 *
 * <p>Releasing more bytes than are in flight is an error ({@link IllegalStateException}).
 * An optional listener ({@link #onRelease(Runnable)}) runs after each release on the releasing
 * thread, so a stalled sender can be woken, typically {@code window.onRelease(gated::capacityAvailable)}.
 *
 * <p>Thread-safe and lock-free: every operation is a compare-and-set on one {@code long};
 * nothing allocates.
 */
public final class ByteWindow {

    private final long capacity;
    private final AtomicLong inFlight = new AtomicLong();
    private volatile Runnable releaseListener;

    /** @param capacityBytes the most bytes in flight at once, at least 1 */
    public ByteWindow(long capacityBytes) {
        if (capacityBytes < 1) {
            throw new IllegalArgumentException("window capacity must be at least 1 byte, was " + capacityBytes);
        }
        this.capacity = capacityBytes;
    }

    /**
     * Takes room for {@code bytes}, all or nothing: granted when it fits in the room left, or when
     * the window is empty (a request larger than the whole window then goes alone).
     *
     * @return true when granted; false (nothing taken) when the window has too little room.
     *         {@code bytes == 0} takes nothing and returns true.
     * @throws IllegalArgumentException when {@code bytes} is negative
     */
    public boolean tryAcquire(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes to acquire must not be negative, was " + bytes);
        }
        if (bytes == 0) {
            return true;
        }
        for (;;) {
            long f = inFlight.get();
            // capacity - f may be negative (an oversize request in flight); no overflow either way.
            if (f != 0 && bytes > capacity - f) {
                return false;
            }
            if (inFlight.compareAndSet(f, f + bytes)) {
                return true;
            }
        }
    }

    /**
     * Gives back {@code bytes} whose work completed, then runs the listener (if any and if
     * {@code bytes > 0}) on this thread.
     *
     * @throws IllegalArgumentException when {@code bytes} is negative
     * @throws IllegalStateException    when more bytes are released than are in flight; nothing is
     *                                  released
     */
    public void release(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes to release must not be negative, was " + bytes);
        }
        if (bytes == 0) {
            return;
        }
        for (;;) {
            long f = inFlight.get();
            if (bytes > f) {
                throw new IllegalStateException("window over-release: releasing " + bytes
                        + " bytes with only " + f + " in flight (capacity " + capacity + ")");
            }
            if (inFlight.compareAndSet(f, f - bytes)) {
                break;
            }
        }
        Runnable l = releaseListener;
        if (l != null) {
            l.run();
        }
    }

    /**
     * Sets what runs after every {@link #release} of at least one byte, on the releasing thread;
     * {@code null} removes it. The listener must be quick and must not throw (an exception reaches
     * the caller of {@code release}, after the bytes were released).
     */
    public void onRelease(Runnable listener) {
        this.releaseListener = listener;
    }

    /** Bytes acquired and not yet released. */
    public long inFlight() {
        return inFlight.get();
    }

    /** The configured bound on bytes in flight. */
    public long capacity() {
        return capacity;
    }

    /**
     * Bytes that could be acquired now without waiting: {@code capacity() - inFlight()}, at least 0.
     * (An empty window grants any size; see the class comment.)
     */
    public long room() {
        return Math.max(0, capacity - inFlight.get());
    }

    /** True when nothing is in flight. */
    public boolean isEmpty() {
        return inFlight.get() == 0;
    }

    @Override
    public String toString() {
        return "ByteWindow[inFlight=" + inFlight.get() + "/" + capacity + "]";
    }
}
