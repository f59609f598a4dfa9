package io.reactorrdma.verbs.ffm.abi;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

import static io.reactorrdma.verbs.ffm.abi.CTypes.i32;
import static io.reactorrdma.verbs.ffm.abi.CTypes.opaque;
import static io.reactorrdma.verbs.ffm.abi.CTypes.pad;
import static io.reactorrdma.verbs.ffm.abi.CTypes.ptr;
import static io.reactorrdma.verbs.ffm.abi.CTypes.u8;

/**
 * The connection manager's structs ({@code rdma/rdma_cma.h}): the event channel (a real descriptor the
 * CM thread blocks on), an event with its connection parameters (where the handshake's private data
 * travels), and the CM id, of which the provider reads the device context, the QP and the port.
 */
public final class CmLayouts {

    /** {@code struct rdma_route}: opaque here (addresses, path records); its size places the fields after it. */
    static final long RDMA_ROUTE_BYTES = 312;

    /** {@code struct rdma_event_channel}: 4 bytes. */
    public static final StructLayout RDMA_EVENT_CHANNEL = MemoryLayout.structLayout(i32("fd")).withName("rdma_event_channel");

    /** {@code struct rdma_conn_param}: 24 bytes. */
    public static final StructLayout RDMA_CONN_PARAM = MemoryLayout.structLayout(
            ptr("private_data"), u8("private_data_len"), u8("responder_resources"), u8("initiator_depth"),
            u8("flow_control"), u8("retry_count"), u8("rnr_retry_count"), u8("srq"), pad(1), i32("qp_num"), pad(4))
            .withName("rdma_conn_param");

    /** {@code struct rdma_ud_param}: 56 bytes (only its size matters here: it shares a union with the above). */
    public static final StructLayout RDMA_UD_PARAM = MemoryLayout.structLayout(
            ptr("private_data"), u8("private_data_len"), pad(7), AttributeLayouts.IBV_AH_ATTR.withName("ah_attr"),
            i32("qp_num"), i32("qkey")).withName("rdma_ud_param");

    /** {@code struct rdma_cm_event}: 80 bytes. */
    public static final StructLayout RDMA_CM_EVENT = MemoryLayout.structLayout(
            ptr("id"), ptr("listen_id"), i32("event"), i32("status"),
            MemoryLayout.unionLayout(RDMA_CONN_PARAM.withName("conn"), RDMA_UD_PARAM.withName("ud")).withName("param"))
            .withName("rdma_cm_event");

    /** {@code struct rdma_cm_id}: 416 bytes. */
    public static final StructLayout RDMA_CM_ID = MemoryLayout.structLayout(
            ptr("verbs"), ptr("channel"), ptr("context"), ptr("qp"), opaque("route", RDMA_ROUTE_BYTES), i32("ps"),
            u8("port_num"), pad(3), ptr("event"), ptr("send_cq_channel"), ptr("send_cq"), ptr("recv_cq_channel"),
            ptr("recv_cq"), ptr("srq"), ptr("pd"), i32("qp_type"), pad(4)).withName("rdma_cm_id");

    private CmLayouts() {
    }
}
