package io.reactorrdma.verbs.work.tracking;

/**
 * A hardware completion queue's room, as the providers size it: the queue holds twice the SPI's capacity, the send
 * depths of its queue pairs may take up to the capacity and their receive depths another capacity, so it can never
 * overrun (an overrun puts an RNIC's queue in error). Not thread-safe: its owner calls it under its own lock.
 */
public final class CqRoom {

    private final int capacity;
    private int reservedSend;
    private int reservedRecv;

    public CqRoom(int capacity) {
        this.capacity = capacity;
    }

    /** Takes room for a queue pair's send and receive depths, or says what size the queue needs. */
    public void reserve(int sendDepth, int recvDepth) {
        if ((long) reservedSend + sendDepth > capacity || (long) reservedRecv + recvDepth > capacity) {
            throw new IllegalArgumentException("completion queue holds " + capacity + " completions and its queue pairs already "
                    + "take " + reservedSend + " send and " + reservedRecv + " receive slots; a queue pair of depths " + sendDepth + "/"
                    + recvDepth + " does not fit. Create a larger completion queue (at least the sum of the send-queue depths, "
                    + "and of the receive-queue depths)");
        }
        reservedSend += sendDepth;
        reservedRecv += recvDepth;
    }

    /** Gives back what {@link #reserve} took, once the queue pair is destroyed. */
    public void release(int sendDepth, int recvDepth) {
        reservedSend -= sendDepth;
        reservedRecv -= recvDepth;
    }
}
