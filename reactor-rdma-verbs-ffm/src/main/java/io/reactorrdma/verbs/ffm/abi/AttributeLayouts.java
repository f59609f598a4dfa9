package io.reactorrdma.verbs.ffm.abi;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;

import static io.reactorrdma.verbs.ffm.abi.CTypes.chars;
import static io.reactorrdma.verbs.ffm.abi.CTypes.i32;
import static io.reactorrdma.verbs.ffm.abi.CTypes.pad;
import static io.reactorrdma.verbs.ffm.abi.CTypes.ptr;
import static io.reactorrdma.verbs.ffm.abi.CTypes.u16;
import static io.reactorrdma.verbs.ffm.abi.CTypes.u64;
import static io.reactorrdma.verbs.ffm.abi.CTypes.u8;

/**
 * The attribute structs ({@code infiniband/verbs.h}) the provider fills or reads when it sets things
 * up: a queue pair's capacities and state transitions, the address vector of a connected QP, and what
 * {@code ibv_query_device} and {@code ibv_query_port} report — the limits the engine otherwise guesses
 * (outstanding READs, scatter/gather entries, inline data, MTU, link layer).
 */
public final class AttributeLayouts {

    /** {@code struct ibv_qp_cap}: 20 bytes. */
    public static final StructLayout IBV_QP_CAP = MemoryLayout.structLayout(
            i32("max_send_wr"), i32("max_recv_wr"), i32("max_send_sge"), i32("max_recv_sge"), i32("max_inline_data"))
            .withName("ibv_qp_cap");

    /** {@code struct ibv_qp_init_attr}: 64 bytes. */
    public static final StructLayout IBV_QP_INIT_ATTR = MemoryLayout.structLayout(
            ptr("qp_context"), ptr("send_cq"), ptr("recv_cq"), ptr("srq"), IBV_QP_CAP.withName("cap"), i32("qp_type"),
            i32("sq_sig_all"), pad(4)).withName("ibv_qp_init_attr");

    /** {@code union ibv_gid}: 16 bytes. */
    public static final UnionLayout IBV_GID = MemoryLayout.unionLayout(
            chars("raw", 16),
            MemoryLayout.structLayout(u64("subnet_prefix"), u64("interface_id")).withName("global"))
            .withName("ibv_gid");

    /** {@code struct ibv_global_route}: 24 bytes. */
    public static final StructLayout IBV_GLOBAL_ROUTE = MemoryLayout.structLayout(
            IBV_GID.withName("dgid"), i32("flow_label"), u8("sgid_index"), u8("hop_limit"), u8("traffic_class"), pad(1))
            .withName("ibv_global_route");

    /** {@code struct ibv_ah_attr}: 32 bytes. */
    public static final StructLayout IBV_AH_ATTR = MemoryLayout.structLayout(
            IBV_GLOBAL_ROUTE.withName("grh"), u16("dlid"), u8("sl"), u8("src_path_bits"), u8("static_rate"),
            u8("is_global"), u8("port_num"), pad(1)).withName("ibv_ah_attr");

    /** {@code struct ibv_qp_attr}: 144 bytes; {@code ibv_modify_qp} takes it with a mask of the fields set. */
    public static final StructLayout IBV_QP_ATTR = MemoryLayout.structLayout(
            i32("qp_state"), i32("cur_qp_state"), i32("path_mtu"), i32("path_mig_state"), i32("qkey"), i32("rq_psn"),
            i32("sq_psn"), i32("dest_qp_num"), i32("qp_access_flags"), IBV_QP_CAP.withName("cap"),
            IBV_AH_ATTR.withName("ah_attr"), IBV_AH_ATTR.withName("alt_ah_attr"), u16("pkey_index"),
            u16("alt_pkey_index"), u8("en_sqd_async_notify"), u8("sq_draining"), u8("max_rd_atomic"),
            u8("max_dest_rd_atomic"), u8("min_rnr_timer"), u8("port_num"), u8("timeout"), u8("retry_cnt"),
            u8("rnr_retry"), u8("alt_port_num"), u8("alt_timeout"), pad(1), i32("rate_limit"), pad(4))
            .withName("ibv_qp_attr");

    /** {@code struct ibv_device_attr}: 232 bytes. */
    public static final StructLayout IBV_DEVICE_ATTR = MemoryLayout.structLayout(
            chars("fw_ver", 64), u64("node_guid"), u64("sys_image_guid"), u64("max_mr_size"), u64("page_size_cap"),
            i32("vendor_id"), i32("vendor_part_id"), i32("hw_ver"), i32("max_qp"), i32("max_qp_wr"),
            i32("device_cap_flags"), i32("max_sge"), i32("max_sge_rd"), i32("max_cq"), i32("max_cqe"), i32("max_mr"),
            i32("max_pd"), i32("max_qp_rd_atom"), i32("max_ee_rd_atom"), i32("max_res_rd_atom"),
            i32("max_qp_init_rd_atom"), i32("max_ee_init_rd_atom"), i32("atomic_cap"), i32("max_ee"), i32("max_rdd"),
            i32("max_mw"), i32("max_raw_ipv6_qp"), i32("max_raw_ethy_qp"), i32("max_mcast_grp"),
            i32("max_mcast_qp_attach"), i32("max_total_mcast_qp_attach"), i32("max_ah"), i32("max_fmr"),
            i32("max_map_per_fmr"), i32("max_srq"), i32("max_srq_wr"), i32("max_srq_sge"), u16("max_pkeys"),
            u8("local_ca_ack_delay"), u8("phys_port_cnt"), pad(4)).withName("ibv_device_attr");

    /** {@code struct ibv_port_attr}: 52 bytes. */
    public static final StructLayout IBV_PORT_ATTR = MemoryLayout.structLayout(
            i32("state"), i32("max_mtu"), i32("active_mtu"), i32("gid_tbl_len"), i32("port_cap_flags"),
            i32("max_msg_sz"), i32("bad_pkey_cntr"), i32("qkey_viol_cntr"), u16("pkey_tbl_len"), u16("lid"),
            u16("sm_lid"), u8("lmc"), u8("max_vl_num"), u8("sm_sl"), u8("subnet_timeout"), u8("init_type_reply"),
            u8("active_width"), u8("active_speed"), u8("phys_state"), u8("link_layer"), u8("flags"),
            u16("port_cap_flags2"), pad(2)).withName("ibv_port_attr");

    private AttributeLayouts() {
    }
}
