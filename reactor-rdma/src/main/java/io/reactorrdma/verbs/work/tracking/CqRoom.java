package io.reactorrdma.verbs.work.tracking;

import java.util.ArrayDeque;

/**
 * A hardware completion queue's room, as the providers size it: the queue holds twice the SPI's capacity, the send
 * depths of its queue pairs may take up to the capacity and their receive depths another capacity, so it can never
 * overrun (an overrun puts an RNIC's queue in error). Not thread-safe: its owner calls it under its own lock.
 *
 * <p>A queue pair destroyed with requests outstanding may leave their completions (the flushes) in the queue: some
 * drivers remove them when the queue pair is destroyed (mlx5, mlx4), others leave them to be polled (rxe, siw). So
 * {@link #releaseDestroyed} keeps the outstanding part of its room taken until a poll that began after it found the
 * queue empty ({@link #drained}): until then a new queue pair could otherwise add its own completions to them and
 * overrun the queue. The poller reads {@link #heldStamp} before it polls; one volatile read, no lock, per poll.
 */
public final class CqRoom {

    private final int capacity;
    private int reservedSend;
    private int reservedRecv;
    /** Room of destroyed queue pairs that their completions may still take: {stamp, send, recv} each, oldest first. */
    private final ArrayDeque<long[]> held = new ArrayDeque<>();
    private int heldSend;
    private int heldRecv;
    private long stamps;
    private volatile long heldStamp;

    public CqRoom(int capacity) {
        this.capacity = capacity;
    }

    /** Takes room for a queue pair's send and receive depths, or says what size the queue needs. */
    public void reserve(int sendDepth, int recvDepth) {
        if ((long) reservedSend + heldSend + sendDepth > capacity || (long) reservedRecv + heldRecv + recvDepth > capacity) {
            throw new IllegalArgumentException("completion queue holds " + capacity + " completions and its queue pairs already "
                    + "take " + reservedSend + " send and " + reservedRecv + " receive slots" + heldText() + "; a queue pair of "
                    + "depths " + sendDepth + "/" + recvDepth + " does not fit. Create a larger completion queue (at least the sum "
                    + "of the send-queue depths, and of the receive-queue depths)");
        }
        reservedSend += sendDepth;
        reservedRecv += recvDepth;
    }

    private String heldText() {
        return heldSend + heldRecv == 0 ? "" : ", and " + heldSend + " send and " + heldRecv + " receive completions of destroyed "
                + "queue pairs may still be in it (they count until a poll finds the queue empty: poll it first)";
    }

    /** Gives back what {@link #reserve} took for a queue pair that never reached the device (nothing can be in the queue). */
    public void release(int sendDepth, int recvDepth) {
        reservedSend -= sendDepth;
        reservedRecv -= recvDepth;
    }

    /**
     * Gives back what {@link #reserve} took for a queue pair whose device queue pair is destroyed (no completion of it
     * comes any more), except the room of its {@code sendOutstanding} and {@code recvOutstanding} requests not seen
     * complete: their completions may still be in the queue, so that room stays taken until {@link #drained}.
     */
    public void releaseDestroyed(int sendDepth, int recvDepth, int sendOutstanding, int recvOutstanding) {
        int send = Math.max(0, Math.min(sendDepth, sendOutstanding));
        int recv = Math.max(0, Math.min(recvDepth, recvOutstanding));
        release(sendDepth - send, recvDepth - recv);
        if (send + recv > 0) {
            reservedSend -= send;
            reservedRecv -= recv;
            heldSend += send;
            heldRecv += recv;
            long stamp = ++stamps;
            held.add(new long[]{stamp, send, recv});
            heldStamp = stamp;
        }
    }

    /** The stamp of the latest {@link #releaseDestroyed} that holds room, 0 when none ever did. Any thread, no lock. */
    public long heldStamp() {
        return heldStamp;
    }

    /**
     * A poll that began after {@link #heldStamp} returned {@code stamp} found the queue empty: every completion of the
     * queue pairs destroyed up to then is polled (or was removed by the driver), so their room comes back.
     */
    public void drained(long stamp) {
        long[] h;
        while ((h = held.peek()) != null && h[0] <= stamp) {
            held.poll();
            heldSend -= (int) h[1];
            heldRecv -= (int) h[2];
        }
    }

    /** Whether destroyed queue pairs' completions still hold room (tests). */
    public boolean holds() {
        return !held.isEmpty();
    }
}
