package io.reactorrdma.verbs.ffm.abi;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;

import static io.reactorrdma.verbs.ffm.abi.CTypes.i32;
import static io.reactorrdma.verbs.ffm.abi.CTypes.pad;
import static io.reactorrdma.verbs.ffm.abi.CTypes.ptr;
import static io.reactorrdma.verbs.ffm.abi.CTypes.u16;
import static io.reactorrdma.verbs.ffm.abi.CTypes.u64;
import static io.reactorrdma.verbs.ffm.abi.CTypes.u8;

/**
 * The data path's structs ({@code infiniband/verbs.h}): scatter/gather entries, send and receive work
 * requests, and work completions. A provider builds chains of these once in native memory and patches
 * them per post. Anonymous unions get the names in brackets: {@code imm} for the immediate data /
 * invalidated rkey, {@code ext} for the memory-window bind / TSO union of a send request.
 */
public final class WorkRequestLayouts {

    /** {@code struct ibv_sge}: 16 bytes. */
    public static final StructLayout IBV_SGE = MemoryLayout.structLayout(
            u64("addr"), i32("length"), i32("lkey")).withName("ibv_sge");

    /** {@code struct ibv_mw_bind_info}: 32 bytes. */
    public static final StructLayout IBV_MW_BIND_INFO = MemoryLayout.structLayout(
            ptr("mr"), u64("addr"), u64("length"), i32("mw_access_flags"), pad(4)).withName("ibv_mw_bind_info");

    private static final UnionLayout SEND_WR_WR = MemoryLayout.unionLayout(
            MemoryLayout.structLayout(u64("remote_addr"), i32("rkey"), pad(4)).withName("rdma"),
            MemoryLayout.structLayout(u64("remote_addr"), u64("compare_add"), u64("swap"), i32("rkey"), pad(4))
                    .withName("atomic"),
            MemoryLayout.structLayout(ptr("ah"), i32("remote_qpn"), i32("remote_qkey")).withName("ud"))
            .withName("wr");

    /** {@code struct ibv_send_wr}: 128 bytes. */
    public static final StructLayout IBV_SEND_WR = MemoryLayout.structLayout(
            u64("wr_id"), ptr("next"), ptr("sg_list"), i32("num_sge"), i32("opcode"), i32("send_flags"),
            MemoryLayout.unionLayout(i32("imm_data"), i32("invalidate_rkey")).withName("imm"),
            SEND_WR_WR,
            MemoryLayout.unionLayout(MemoryLayout.structLayout(i32("remote_srqn")).withName("xrc")).withName("qp_type"),
            pad(4),
            MemoryLayout.unionLayout(
                    MemoryLayout.structLayout(ptr("mw"), i32("rkey"), pad(4), IBV_MW_BIND_INFO.withName("bind_info"))
                            .withName("bind_mw"),
                    MemoryLayout.structLayout(ptr("hdr"), u16("hdr_sz"), u16("mss"), pad(4)).withName("tso"))
                    .withName("ext"))
            .withName("ibv_send_wr");

    /** {@code struct ibv_recv_wr}: 32 bytes. */
    public static final StructLayout IBV_RECV_WR = MemoryLayout.structLayout(
            u64("wr_id"), ptr("next"), ptr("sg_list"), i32("num_sge"), pad(4)).withName("ibv_recv_wr");

    /** {@code struct ibv_wc}: 48 bytes; {@code ibv_poll_cq} fills an array of them. */
    public static final StructLayout IBV_WC = MemoryLayout.structLayout(
            u64("wr_id"), i32("status"), i32("opcode"), i32("vendor_err"), i32("byte_len"),
            MemoryLayout.unionLayout(i32("imm_data"), i32("invalidated_rkey")).withName("imm"),
            i32("qp_num"), i32("src_qp"), i32("wc_flags"), u16("pkey_index"), u16("slid"), u8("sl"),
            u8("dlid_path_bits"), pad(2)).withName("ibv_wc");

    private WorkRequestLayouts() {
    }
}
