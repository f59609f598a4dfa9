package io.reactorrdma.verbs.disni.cm;

import com.ibm.disni.verbs.RdmaCmEvent;

/**
 * {@code enum rdma_cm_event_type} values as DiSNI reports them ({@code RdmaCmEvent.getEvent()} is
 * the ordinal of {@code RdmaCmEvent.EventType}), and what a failure event means to a caller.
 */
public final class CmEvents {

    public static final int ADDR_RESOLVED = RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_RESOLVED.ordinal();
    public static final int ADDR_ERROR = RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_ERROR.ordinal();
    public static final int ROUTE_RESOLVED = RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_RESOLVED.ordinal();
    static final int ROUTE_ERROR = RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_ERROR.ordinal();
    public static final int CONNECT_REQUEST = RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST.ordinal();
    static final int CONNECT_ERROR = RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_ERROR.ordinal();
    static final int UNREACHABLE = RdmaCmEvent.EventType.RDMA_CM_EVENT_UNREACHABLE.ordinal();
    public static final int REJECTED = RdmaCmEvent.EventType.RDMA_CM_EVENT_REJECTED.ordinal();
    public static final int ESTABLISHED = RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED.ordinal();
    public static final int DISCONNECTED = RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED.ordinal();
    public static final int DEVICE_REMOVAL = RdmaCmEvent.EventType.RDMA_CM_EVENT_DEVICE_REMOVAL.ordinal();
    public static final int ADDR_CHANGE = RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_CHANGE.ordinal();
    public static final int TIMEWAIT_EXIT = RdmaCmEvent.EventType.RDMA_CM_EVENT_TIMEWAIT_EXIT.ordinal();

    private static final RdmaCmEvent.EventType[] TYPES = RdmaCmEvent.EventType.values();

    private CmEvents() {
    }

    public static String name(int event) {
        return event >= 0 && event < TYPES.length ? TYPES[event].name() : "rdma_cm event " + event;
    }

    /** Whether the event ends a connection that was established. */
    public static boolean endsConnection(int event) {
        return event == DISCONNECTED || event == DEVICE_REMOVAL;
    }

    /** What went wrong when {@code event} came instead of {@code expected} while connecting, and what to check. */
    public static String failure(int event, int expected, String peer) {
        String what;
        if (event == ADDR_ERROR) {
            what = "rdma_resolve_addr could not map " + peer + " to a local RDMA device: is it reachable through an "
                    + "RDMA interface (RoCE netdev or IPoIB) of this host?";
        } else if (event == ROUTE_ERROR) {
            what = "rdma_resolve_route found no route to " + peer + " (RoCE: check the GID table and that both ends are "
                    + "in the same L3 network; IB: check the subnet manager)";
        } else if (event == UNREACHABLE) {
            what = peer + " is unreachable over RDMA (no answer from its connection manager)";
        } else if (event == REJECTED) {
            what = peer + " rejected the RDMA connection: nothing listens there, or the listener gave up on this request";
        } else if (event == CONNECT_ERROR) {
            what = "the RDMA connection to " + peer + " failed while being established";
        } else if (endsConnection(event)) {
            what = "the connection to " + peer + " ended (" + name(event) + ") while being established";
        } else {
            what = "unexpected " + name(event);
        }
        return what + " [expected " + name(expected) + ", got " + name(event) + "]";
    }
}
