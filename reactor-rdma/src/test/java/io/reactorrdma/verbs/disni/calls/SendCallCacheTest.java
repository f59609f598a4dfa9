package io.reactorrdma.verbs.disni.calls;

import com.ibm.disni.verbs.IbvSendWR;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.work.WrOpcode;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SendCallCacheTest {

    private final List<FakeCalls.PostSend> built = new ArrayList<>();
    private final SendCallCache cache = new SendCallCache(list -> {
        FakeCalls.PostSend c = new FakeCalls.PostSend(list);
        built.add(c);
        return c;
    }, 4, 32);

    private static SendWr send(long wrId, long addr, int len, int lkey) {
        SendWr w = new SendWr().wrId(wrId).opcode(WrOpcode.SEND);
        w.setSge(addr, len, lkey);
        return w;
    }

    @Test
    void aRequestMapsToDisniFieldValues() {
        SendWr w = new SendWr(2).wrId(99).opcode(WrOpcode.WRITE_WITH_IMM).immData(0x01020304)
                .remote(0x7000_0000_1000L, 0xABCD).signaled(false);
        w.addSge(0x1000, 64, 7);
        w.addSge(0x2000, 32, 8);
        IbvSendWR ibv = SendCallCache.toIbv(w, 1234L);
        assertThat(ibv.getWr_id()).as("the provider token, not the caller's wrId").isEqualTo(1234L);
        assertThat(ibv.getOpcode()).isEqualTo(IbvSendWR.IBV_WR_RDMA_WRITE_WITH_IMM);
        assertThat(ibv.getSend_flags()).isZero();
        int expectedImm = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? 0x04030201 : 0x01020304;
        assertThat(ibv.getImm_data()).as("htonl").isEqualTo(expectedImm);
        assertThat(ibv.getRdma().getRemote_addr()).isEqualTo(0x7000_0000_1000L);
        assertThat(ibv.getRdma().getRkey()).isEqualTo(0xABCD);
        assertThat(ibv.getNum_sge()).isEqualTo(2);
        assertThat(ibv.getSge(1).getAddr()).isEqualTo(0x2000);
        assertThat(ibv.getSge(1).getLength()).isEqualTo(32);
        assertThat(ibv.getSge(1).getLkey()).isEqualTo(8);
        SendWr plain = new SendWr().wrId(1).opcode(WrOpcode.SEND);
        IbvSendWR p = SendCallCache.toIbv(plain, 5);
        assertThat(p.getSend_flags()).isEqualTo(IbvSendWR.IBV_SEND_SIGNALED);
        assertThat(p.getNum_sge()).isZero();
        assertThat(p.getImm_data()).isZero();
    }

    @Test
    void theSameShapeIsBuiltOnceAndPatchedAfterwards() throws Exception {
        cache.post(new SendWr[]{send(1, 0x1000, 10, 1), send(2, 0x2000, 20, 1)}, 0, 2, new long[]{11, 12});
        SendWr a = send(3, 0x3000, 30, 2).signaled(false);
        SendWr b = send(4, 0x4000, 40, 3);
        cache.post(new SendWr[]{a, b}, 0, 2, new long[]{13, 14});
        assertThat(built).hasSize(1);
        FakeCalls.PostSend c = built.get(0);
        assertThat(c.executions).isEqualTo(2);
        assertThat(c.posted.get(0)).containsExactly(11, 12);
        assertThat(c.posted.get(1)).containsExactly(13, 14);
        assertThat(c.wrs.get(0).flags).as("signalling is patched, not keyed").isZero();
        assertThat(c.wrs.get(1).flags).isEqualTo(IbvSendWR.IBV_SEND_SIGNALED);
        assertThat(c.wrs.get(0).sges.get(0).addr).isEqualTo(0x3000);
        assertThat(c.wrs.get(0).sges.get(0).length).isEqualTo(30);
        assertThat(c.wrs.get(0).sges.get(0).lkey).isEqualTo(2);
        assertThat(c.wrs.get(1).sges.get(0).addr).isEqualTo(0x4000);
        assertThat(cache.hits()).isEqualTo(1);
        assertThat(cache.builds()).isEqualTo(1);
    }

    @Test
    void theSolicitedFlagIsBuiltAndPatchedPerPostNotKeyed() throws Exception {
        SendWr w = send(1, 0x1000, 8, 1).solicited(true);
        assertThat(SendCallCache.toIbv(w, 1).getSend_flags()).isEqualTo(IbvSendWR.IBV_SEND_SIGNALED | IbvSendWR.IBV_SEND_SOLICITED);
        cache.post(new SendWr[]{w}, 0, 1, new long[]{1});
        FakeCalls.Wr native0 = built.get(0).wrs.get(0);
        assertThat(native0.flags).isEqualTo(IbvSendWR.IBV_SEND_SIGNALED | IbvSendWR.IBV_SEND_SOLICITED);
        cache.post(new SendWr[]{w.solicited(false)}, 0, 1, new long[]{2});
        assertThat(native0.flags).isEqualTo(IbvSendWR.IBV_SEND_SIGNALED);
        cache.post(new SendWr[]{w.solicited(true).signaled(false)}, 0, 1, new long[]{3});
        assertThat(native0.flags).isEqualTo(IbvSendWR.IBV_SEND_SOLICITED);
        assertThat(built).as("one call for all three").hasSize(1);
    }

    /** With DiSNI's real post call: the send_flags the NIC reads in the native ibv_send_wr. */
    @Test
    void theSolicitedFlagReachesTheNativeRequest() throws Exception {
        SendCallCache real = new SendCallCache(NativeCalls.SilentPostSend::new, 4, 32);
        SendWr[] batch = {send(1, 0x1000, 8, 1), new SendWr().wrId(2).opcode(WrOpcode.WRITE_WITH_IMM).remote(0x9000, 5).immData(7)};
        batch[1].setSge(0x2000, 64, 1);
        real.post(batch, 0, 2, new long[]{11, 12});
        java.nio.ByteBuffer cmd = real.nativeBuffer(batch, 0, 2);
        assertThat(cmd).isNotNull();
        assertThat(cmd.getInt(CommandBuffers.SEND_FLAGS)).isEqualTo(IbvSendWR.IBV_SEND_SIGNALED);
        batch[0].solicited(true).signaled(false);
        batch[1].solicited(true);
        real.post(batch, 0, 2, new long[]{13, 14});
        assertThat(real.builds()).isEqualTo(1);
        assertThat(cmd.getInt(CommandBuffers.SEND_FLAGS)).as("request 0").isEqualTo(IbvSendWR.IBV_SEND_SOLICITED);
        assertThat(cmd.getInt(CommandBuffers.SEND_WR_SIZE + CommandBuffers.SEND_FLAGS)).as("request 1")
                .isEqualTo(IbvSendWR.IBV_SEND_SIGNALED | IbvSendWR.IBV_SEND_SOLICITED);
        real.clear();
    }

    /**
     * With DiSNI's real post call: a pull batch as the engine posts it (READ fragments into local
     * destinations, then a PULL_DONE SEND) reaches the native requests as RDMA_READs with the
     * source's address and key and the destination's SGE, and the next batch of the same shape
     * patches them in place.
     */
    @Test
    void readFragmentsReachTheNativeRequestsWithTheirSourceAndDestination() throws Exception {
        SendCallCache real = new SendCallCache(NativeCalls.SilentPostSend::new, 4, 32);
        SendWr[] batch = {read(1, 0x7000_0000_9000L, 0x55, 0x2000, 65536, 3), read(2, 0x7000_0001_9000L, 0x55, 0x12000, 4096, 3),
                send(3, 0x3000, 20, 1).solicited(false)};
        real.post(batch, 0, 3, new long[]{11, 12, 13});
        java.nio.ByteBuffer cmd = real.nativeBuffer(batch, 0, 3);
        assertThat(cmd).isNotNull();
        assertNativeRead(cmd, 0, 3, 0x7000_0000_9000L, 0x55, 0x2000, 65536, 3);
        assertNativeRead(cmd, 1, 3, 0x7000_0001_9000L, 0x55, 0x12000, 4096, 3);
        assertThat(cmd.getInt(2 * CommandBuffers.SEND_WR_SIZE + CommandBuffers.SEND_OPCODE)).isEqualTo(IbvSendWR.IBV_WR_SEND);

        batch[0] = read(4, 0x7000_0002_0000L, 0x66, 0x40000, 8192, 9);
        batch[1] = read(5, 0x7000_0003_0000L, 0x66, 0x50000, 100, 9);
        real.post(batch, 0, 3, new long[]{14, 15, 16});
        assertThat(real.builds()).as("same shape: patched, not rebuilt").isEqualTo(1);
        assertNativeRead(cmd, 0, 3, 0x7000_0002_0000L, 0x66, 0x40000, 8192, 9);
        assertNativeRead(cmd, 1, 3, 0x7000_0003_0000L, 0x66, 0x50000, 100, 9);
        real.clear();
    }

    private static SendWr read(long wrId, long source, int rkey, long destination, int length, int lkey) {
        SendWr w = new SendWr().wrId(wrId).opcode(WrOpcode.READ).remote(source, rkey);
        w.setSge(destination, length, lkey);
        return w;
    }

    /** Request {@code i} of {@code count} (one SGE each) in a native command buffer: an RDMA READ of {@code length} bytes. */
    private static void assertNativeRead(java.nio.ByteBuffer cmd, int i, int count, long source, int rkey, long destination, int length,
                                         int lkey) {
        int wr = i * CommandBuffers.SEND_WR_SIZE;
        int sge = count * CommandBuffers.SEND_WR_SIZE + i * CommandBuffers.SGE_SIZE;
        assertThat(cmd.getInt(wr + CommandBuffers.SEND_OPCODE)).as("request %d opcode", i).isEqualTo(IbvSendWR.IBV_WR_RDMA_READ);
        assertThat(cmd.getLong(wr + 40)).as("request %d wr.rdma.remote_addr", i).isEqualTo(source);
        assertThat(cmd.getInt(wr + 48)).as("request %d wr.rdma.rkey", i).isEqualTo(rkey);
        assertThat(cmd.getInt(wr + CommandBuffers.SEND_NUM_SGE)).isEqualTo(1);
        assertThat(cmd.getLong(sge)).as("request %d destination", i).isEqualTo(destination);
        assertThat(cmd.getInt(sge + CommandBuffers.SGE_LENGTH)).as("request %d length", i).isEqualTo(length);
        assertThat(cmd.getInt(sge + CommandBuffers.SGE_LKEY)).as("request %d lkey", i).isEqualTo(lkey);
    }

    @Test
    void remoteAddressAndRkeyArePatchedForRdmaOpcodes() throws Exception {
        SendWr w = new SendWr().wrId(1).opcode(WrOpcode.WRITE).remote(0x9000, 5);
        w.setSge(0x1000, 8, 1);
        cache.post(new SendWr[]{w}, 0, 1, new long[]{1});
        w.remote(0xA000, 6).setSge(0x1100, 16, 2);
        cache.post(new SendWr[]{w}, 0, 1, new long[]{2});
        FakeCalls.Wr native0 = built.get(0).wrs.get(0);
        assertThat(built).hasSize(1);
        assertThat(native0.rdma.remoteAddr).isEqualTo(0xA000);
        assertThat(native0.rdma.rkey).isEqualTo(6);
        assertThat(native0.sges.get(0).length).isEqualTo(16);
        assertThat(native0.opcode).isEqualTo(IbvSendWR.IBV_WR_RDMA_WRITE);
    }

    @Test
    void opcodeSgeCountLengthAndImmediateAreTheShape() throws Exception {
        cache.post(new SendWr[]{send(1, 0x1000, 8, 1)}, 0, 1, new long[]{1});
        SendWr twoSges = new SendWr(2).wrId(2).opcode(WrOpcode.SEND);
        twoSges.addSge(0x1000, 4, 1);
        twoSges.addSge(0x2000, 4, 1);
        cache.post(new SendWr[]{twoSges}, 0, 1, new long[]{2});
        SendWr imm = send(3, 0x1000, 8, 1).opcode(WrOpcode.SEND_WITH_IMM).immData(5);
        cache.post(new SendWr[]{imm}, 0, 1, new long[]{3});
        assertThat(built).hasSize(3);
        imm.immData(6);
        cache.post(new SendWr[]{imm}, 0, 1, new long[]{4});
        assertThat(built).as("a new immediate value cannot be patched into DiSNI's call").hasSize(4);
        assertThat(built.get(3).wrs.get(0).imm).isEqualTo(DisniCodes.immToWire(6));
        imm.immData(5);
        cache.post(new SendWr[]{imm}, 0, 1, new long[]{5});
        assertThat(built).as("immediate 5 is still cached").hasSize(4);
        assertThat(built.get(2).executions).isEqualTo(2);
    }

    @Test
    void theLeastRecentlyUsedCallIsEvictedAndFreed() throws Exception {
        for (int n = 1; n <= 4; n++) {
            SendWr[] batch = new SendWr[n];
            for (int i = 0; i < n; i++) {
                batch[i] = send(i, 0x1000, 8, 1);
            }
            cache.post(batch, 0, n, new long[n]);
        }
        cache.post(new SendWr[]{send(1, 0x1000, 8, 1)}, 0, 1, new long[1]); // length 1 used again
        SendWr[] five = new SendWr[5];
        for (int i = 0; i < 5; i++) {
            five[i] = send(i, 0x1000, 8, 1);
        }
        cache.post(five, 0, 5, new long[5]);
        assertThat(built).hasSize(5);
        assertThat(built.get(1).freed).as("length 2 was least recently used").isTrue();
        assertThat(built.get(0).freed).isFalse();
        assertThat(cache.size()).isEqualTo(4);
        cache.clear();
        assertThat(built.stream().filter(c -> !c.freed)).isEmpty();
    }

    @Test
    void aBatchFromTheMiddleOfAnArrayUsesThoseRequests() throws Exception {
        SendWr[] wrs = {send(1, 0x1000, 1, 1), send(2, 0x2000, 2, 1), send(3, 0x3000, 3, 1)};
        cache.post(wrs, 1, 2, new long[]{22, 33});
        assertThat(built.get(0).wrs).hasSize(2);
        assertThat(built.get(0).wrs.get(0).sges.get(0).addr).isEqualTo(0x2000);
        assertThat(built.get(0).posted.get(0)).containsExactly(22, 33);
    }
}
