package io.reactorrdma.verbs.ffm.rdmacore;

import io.reactorrdma.verbs.ffm.abi.Offsets;
import io.reactorrdma.verbs.ffm.abi.ResourceLayouts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A completion channel ({@code struct ibv_comp_channel}): a real file descriptor that becomes readable when an armed
 * completion queue bound to it gets a completion that raises an event. One thread waits on it; close it after its
 * queues.
 */
public final class RdmaCompletionChannel implements AutoCloseable {

    private static final long FD = Offsets.of(ResourceLayouts.IBV_COMP_CHANNEL, "fd");

    private final Libibverbs lib;
    private final String device;
    private final MemorySegment channel;
    /** What {@link #awaitEvent} passes to ibv_get_cq_event, made once: a wake-up allocates nothing. */
    private final Arena arena = Arena.ofShared();
    private final MemorySegment state = Libibverbs.callState(arena);
    private final MemorySegment cqOut = arena.allocate(ValueLayout.ADDRESS);
    private final MemorySegment contextOut = arena.allocate(ValueLayout.ADDRESS);
    private boolean closed;

    RdmaCompletionChannel(Libibverbs lib, String device, MemorySegment channel) {
        this.lib = lib;
        this.device = device;
        this.channel = channel;
    }

    /** The descriptor to wait on (epoll, poll) before {@link #awaitEvent}. */
    public int fd() {
        return channel.get(ValueLayout.JAVA_INT, FD);
    }

    MemorySegment segment() {
        return channel;
    }

    /**
     * Blocks until one of the channel's queues raises an event ({@code ibv_get_cq_event}) and returns that queue's
     * address ({@link RdmaCq#address()}); the caller acknowledges it ({@link RdmaCq#ackEvents}) and re-arms the queue.
     */
    public long awaitEvent() {
        try {
            int rc = (int) lib.getCqEvent.invokeExact(state, channel, cqOut, contextOut);
            if (rc != 0) {
                throw new IllegalStateException("ibv_get_cq_event(" + device + ") failed with "
                        + Errno.name(Libibverbs.errno(state)) + ": the channel was closed or the device removed");
            }
            return cqOut.get(ValueLayout.JAVA_LONG, 0); // the pointer as a long (LP64): no segment object
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling ibv_get_cq_event failed", t);
        }
    }

    /** Destroys the channel ({@code ibv_destroy_comp_channel}); later calls do nothing. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            try {
                NativeCalls.destroy(lib.destroyCompChannel, channel, "ibv_destroy_comp_channel", device,
                        "completion queues are still bound to it");
            } finally {
                arena.close();
            }
        }
    }
}
