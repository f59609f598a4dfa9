package io.reactorrdma.engine;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The buffer the engine copies the next small received message into ({@link Engine#COPY_OUT_LIMIT}), made ready
 * behind the doorbell of the turn before, not between the message's arrival and its answer. An allocation there
 * is on every round trip's way (the pool's take, the buffer object, and for one allocation in 128 at Netty's
 * default leak detection level a stack trace, microseconds); behind the doorbell it overlaps the peer's turn.
 *
 * <p>The buffer made ready holds as many bytes as the last message copied out (messages of one conversation
 * tend to be alike); a message that does not fit gets a buffer of its own size on its way, as before. So a
 * message may come in a buffer larger than itself, by at most the size of the message before it (both at most
 * {@link Engine#COPY_OUT_LIMIT}). One buffer is made ready per turn: the first message, one larger than the
 * last, and a second one in the same turn get theirs on their way. Netty's leak detector, where it samples a
 * buffer made ready, records where it was made ready ({@code Engine.run}), not where the message arrived. I/O
 * thread only; {@link #release()} gives back a buffer still ready when the engine fails or closes.
 */
final class CopyOutBuffer {

    private final ByteBufAllocator alloc;
    private ByteBuf ready;
    /** Bytes of the last message copied out: the capacity of the next buffer made ready (0: none yet, or released). */
    private int lastLength;
    /** Messages whose buffer was allocated on their way (tests). */
    private long allocatedOnArrival;

    CopyOutBuffer(ByteBufAllocator alloc) {
        this.alloc = alloc;
    }

    /** A buffer with room for {@code length} bytes, empty; the caller owns it. */
    ByteBuf take(int length) {
        lastLength = length;
        ByteBuf b = ready;
        if (b != null) {
            ready = null;
            if (length <= b.capacity()) {
                return b;
            }
            b.release(); // too small for this message: the next one made ready is this one's size
        }
        allocatedOnArrival++;
        return alloc.directBuffer(length, length);
    }

    /**
     * Makes the next buffer ready, if one was taken (behind the doorbell). Where the pool refuses, the next message
     * allocates on its way (and meets the refusal itself).
     */
    void prepare() {
        if (ready == null && lastLength > 0) {
            try {
                ready = alloc.directBuffer(lastLength, lastLength);
            } catch (RuntimeException | OutOfMemoryError e) {
                lastLength = 0; // not again every turn: the next message allocates on its way
            }
        }
    }

    /** Gives back the buffer made ready; nothing is made ready after this (the failed engine takes no more messages). */
    void release() {
        lastLength = 0;
        ByteBuf b = ready;
        ready = null;
        if (b != null) {
            b.release();
        }
    }

    /** Whether a buffer is ready for the next message (tests). */
    boolean isReady() {
        return ready != null;
    }

    /** Messages whose buffer was allocated on their way, between their arrival and their answer (tests). */
    long allocatedOnArrival() {
        return allocatedOnArrival;
    }
}
