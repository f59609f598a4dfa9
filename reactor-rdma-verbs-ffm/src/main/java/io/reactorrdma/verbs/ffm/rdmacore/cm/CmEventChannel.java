package io.reactorrdma.verbs.ffm.rdmacore.cm;

import io.reactorrdma.verbs.ffm.abi.CmLayouts;
import io.reactorrdma.verbs.ffm.abi.Offsets;
import io.reactorrdma.verbs.ffm.rdmacore.Errno;
import io.reactorrdma.verbs.ffm.rdmacore.Libibverbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A connection manager's event channel ({@code struct rdma_event_channel}): a real descriptor; one thread takes its
 * events. Close it after its ids.
 */
public final class CmEventChannel implements AutoCloseable {

    private static final long FD = Offsets.of(CmLayouts.RDMA_EVENT_CHANNEL, "fd");
    private static final long ID = offset("id");
    private static final long LISTEN_ID = offset("listen_id");
    private static final long EVENT = offset("event");
    private static final long STATUS = offset("status");
    private static final long PRIVATE_DATA = offset("param", "conn", "private_data");
    private static final long PRIVATE_DATA_LEN = offset("param", "conn", "private_data_len");

    private final Librdmacm cm;
    private final MemorySegment channel;
    private boolean closed;

    CmEventChannel(Librdmacm cm, MemorySegment channel) {
        this.cm = cm;
        this.channel = channel;
    }

    /** The descriptor to wait on before {@link #awaitEvent}. */
    public int fd() {
        return channel.get(ValueLayout.JAVA_INT, FD);
    }

    MemorySegment segment() {
        return channel;
    }

    Librdmacm cm() {
        return cm;
    }

    /** Blocks for the next event ({@code rdma_get_cm_event}), copies it out and acknowledges it. */
    public CmEvent awaitEvent() {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = Libibverbs.callState(call);
            MemorySegment out = call.allocate(ValueLayout.ADDRESS);
            int rc = (int) cm.getCmEvent.invokeExact(state, channel, out);
            if (rc != 0) {
                throw new IllegalStateException("rdma_get_cm_event failed with " + Errno.name(Libibverbs.errno(state))
                        + ": the event channel was closed");
            }
            MemorySegment event = out.get(ValueLayout.ADDRESS, 0).reinterpret(CmLayouts.RDMA_CM_EVENT.byteSize());
            try {
                int length = Byte.toUnsignedInt(event.get(ValueLayout.JAVA_BYTE, PRIVATE_DATA_LEN));
                MemorySegment data = event.get(ValueLayout.ADDRESS, PRIVATE_DATA);
                byte[] privateData = length == 0 || data.address() == 0 ? new byte[0]
                        : data.reinterpret(length).toArray(ValueLayout.JAVA_BYTE);
                return new CmEvent(event.get(ValueLayout.JAVA_INT, EVENT), event.get(ValueLayout.JAVA_INT, STATUS),
                        event.get(ValueLayout.ADDRESS, ID).address(), event.get(ValueLayout.ADDRESS, LISTEN_ID).address(),
                        privateData);
            } finally {
                // always acknowledged: rdma_destroy_id waits for its events' acknowledgements
                int ack = (int) cm.ackCmEvent.invokeExact(event);
                if (ack != 0) {
                    throw new IllegalStateException("rdma_ack_cm_event failed with " + Errno.name(ack));
                }
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling rdma_get_cm_event failed", t);
        }
    }

    /** Destroys the channel ({@code rdma_destroy_event_channel}); later calls do nothing. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            try {
                cm.destroyEventChannel.invokeExact(channel);
            } catch (Throwable t) {
                throw new IllegalStateException("calling rdma_destroy_event_channel failed", t);
            }
        }
    }

    private static long offset(String... path) {
        return Offsets.of(CmLayouts.RDMA_CM_EVENT, path);
    }
}
