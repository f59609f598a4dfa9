package io.reactorrdma.verbs.ffm.abi;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.util.List;

import static io.reactorrdma.verbs.ffm.abi.CTypes.i32;
import static io.reactorrdma.verbs.ffm.abi.CTypes.opaque;
import static io.reactorrdma.verbs.ffm.abi.CTypes.pad;
import static io.reactorrdma.verbs.ffm.abi.CTypes.ptr;
import static io.reactorrdma.verbs.ffm.abi.CTypes.u64;

/**
 * The objects rdma-core hands out ({@code infiniband/verbs.h}): the device context with its operation
 * table, protection domain, memory region, completion channel, completion queue and queue pair. The
 * provider reads a few of their fields (a QP's number, an MR's keys, a channel's fd) and calls the
 * data path through the context's operation table, as the inline functions {@code ibv_post_send},
 * {@code ibv_post_recv}, {@code ibv_poll_cq} and {@code ibv_req_notify_cq} of {@code verbs.h} do:
 * those have no symbol to look up.
 */
public final class ResourceLayouts {

    /** {@code pthread_mutex_t} on x86-64 and aarch64 glibc. */
    static final long PTHREAD_MUTEX_BYTES = 40;
    /** {@code pthread_cond_t} on x86-64 and aarch64 glibc. */
    static final long PTHREAD_COND_BYTES = 48;

    /** The function pointers of {@code struct ibv_context_ops}, in declaration order. */
    static final List<String> CONTEXT_OPS = List.of(
            "_compat_query_device", "_compat_query_port", "_compat_alloc_pd", "_compat_dealloc_pd",
            "_compat_reg_mr", "_compat_rereg_mr", "_compat_dereg_mr", "alloc_mw", "bind_mw", "dealloc_mw",
            "_compat_create_cq", "poll_cq", "req_notify_cq", "_compat_cq_event", "_compat_resize_cq",
            "_compat_destroy_cq", "_compat_create_srq", "_compat_modify_srq", "_compat_query_srq",
            "_compat_destroy_srq", "post_srq_recv", "_compat_create_qp", "_compat_query_qp", "_compat_modify_qp",
            "_compat_destroy_qp", "post_send", "post_recv", "_compat_create_ah", "_compat_destroy_ah",
            "_compat_attach_mcast", "_compat_detach_mcast", "_compat_async_event");

    /** {@code struct ibv_context_ops}: 32 function pointers, 256 bytes. */
    public static final StructLayout IBV_CONTEXT_OPS = MemoryLayout.structLayout(
            CONTEXT_OPS.stream().map(CTypes::ptr).toArray(MemoryLayout[]::new)).withName("ibv_context_ops");

    /** {@code struct ibv_context}: 328 bytes. */
    public static final StructLayout IBV_CONTEXT = MemoryLayout.structLayout(
            ptr("device"), IBV_CONTEXT_OPS.withName("ops"), i32("cmd_fd"), i32("async_fd"), i32("num_comp_vectors"),
            pad(4), opaque("mutex", PTHREAD_MUTEX_BYTES), ptr("abi_compat")).withName("ibv_context");

    /** {@code struct ibv_pd}: 16 bytes. */
    public static final StructLayout IBV_PD = MemoryLayout.structLayout(
            ptr("context"), i32("handle"), pad(4)).withName("ibv_pd");

    /** {@code struct ibv_mr}: 48 bytes; the keys are what a work request names. */
    public static final StructLayout IBV_MR = MemoryLayout.structLayout(
            ptr("context"), ptr("pd"), ptr("addr"), u64("length"), i32("handle"), i32("lkey"), i32("rkey"), pad(4))
            .withName("ibv_mr");

    /** {@code struct ibv_comp_channel}: 16 bytes; its fd is what the I/O thread blocks on. */
    public static final StructLayout IBV_COMP_CHANNEL = MemoryLayout.structLayout(
            ptr("context"), i32("fd"), i32("refcnt")).withName("ibv_comp_channel");

    /** {@code struct ibv_cq}: 128 bytes. */
    public static final StructLayout IBV_CQ = MemoryLayout.structLayout(
            ptr("context"), ptr("channel"), ptr("cq_context"), i32("handle"), i32("cqe"),
            opaque("mutex", PTHREAD_MUTEX_BYTES), opaque("cond", PTHREAD_COND_BYTES), i32("comp_events_completed"),
            i32("async_events_completed")).withName("ibv_cq");

    /** {@code struct ibv_qp}: 160 bytes. */
    public static final StructLayout IBV_QP = MemoryLayout.structLayout(
            ptr("context"), ptr("qp_context"), ptr("pd"), ptr("send_cq"), ptr("recv_cq"), ptr("srq"), i32("handle"),
            i32("qp_num"), i32("state"), i32("qp_type"), opaque("mutex", PTHREAD_MUTEX_BYTES),
            opaque("cond", PTHREAD_COND_BYTES), i32("events_completed"), pad(4)).withName("ibv_qp");

    private ResourceLayouts() {
    }
}
