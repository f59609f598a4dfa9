package io.reactorrdma.verbs.ffm.rdmacore.cm;

import io.reactorrdma.verbs.ffm.abi.VerbsConstants;

/**
 * One connection-manager event ({@code struct rdma_cm_event}), copied out before it was acknowledged.
 *
 * @param type        {@code enum rdma_cm_event_type} ({@link VerbsConstants#RDMA_CM_EVENT_ESTABLISHED}, ...)
 * @param status      0, or the event's error / reject reason
 * @param id          the address of the CM id it is about (for a connect request: the new id of the connection)
 * @param listenId    for a connect request, the address of the listening id; else 0
 * @param privateData the peer's private data (connect request, established on the client, rejected), or empty
 */
public record CmEvent(int type, int status, long id, long listenId, byte[] privateData) {

    /** Its type's name, as rdma_cma.h spells it ({@code RDMA_CM_EVENT_ESTABLISHED}). */
    public String typeName() {
        return switch (type) {
            case VerbsConstants.RDMA_CM_EVENT_ADDR_RESOLVED -> "RDMA_CM_EVENT_ADDR_RESOLVED";
            case VerbsConstants.RDMA_CM_EVENT_ADDR_ERROR -> "RDMA_CM_EVENT_ADDR_ERROR";
            case VerbsConstants.RDMA_CM_EVENT_ROUTE_RESOLVED -> "RDMA_CM_EVENT_ROUTE_RESOLVED";
            case VerbsConstants.RDMA_CM_EVENT_ROUTE_ERROR -> "RDMA_CM_EVENT_ROUTE_ERROR";
            case VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST -> "RDMA_CM_EVENT_CONNECT_REQUEST";
            case VerbsConstants.RDMA_CM_EVENT_CONNECT_RESPONSE -> "RDMA_CM_EVENT_CONNECT_RESPONSE";
            case VerbsConstants.RDMA_CM_EVENT_CONNECT_ERROR -> "RDMA_CM_EVENT_CONNECT_ERROR";
            case VerbsConstants.RDMA_CM_EVENT_UNREACHABLE -> "RDMA_CM_EVENT_UNREACHABLE";
            case VerbsConstants.RDMA_CM_EVENT_REJECTED -> "RDMA_CM_EVENT_REJECTED";
            case VerbsConstants.RDMA_CM_EVENT_ESTABLISHED -> "RDMA_CM_EVENT_ESTABLISHED";
            case VerbsConstants.RDMA_CM_EVENT_DISCONNECTED -> "RDMA_CM_EVENT_DISCONNECTED";
            case VerbsConstants.RDMA_CM_EVENT_DEVICE_REMOVAL -> "RDMA_CM_EVENT_DEVICE_REMOVAL";
            case VerbsConstants.RDMA_CM_EVENT_ADDR_CHANGE -> "RDMA_CM_EVENT_ADDR_CHANGE";
            case VerbsConstants.RDMA_CM_EVENT_TIMEWAIT_EXIT -> "RDMA_CM_EVENT_TIMEWAIT_EXIT";
            default -> "event " + type;
        };
    }
}
