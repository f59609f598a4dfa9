package io.reactorrdma.verbs.disni.calls;

import io.reactorrdma.verbs.work.RecvWr;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.work.WrOpcode;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's normal traffic over DiSNI 2.1's real post calls (JNI replaced by a no-op): every
 * rendezvous WRITE_WITH_IMM carries a fresh immediate, and every receive repost uses fresh
 * buffers. Both caches must hit (one build each) and allocate nothing in steady state, and the
 * native request arrays must carry each post's immediate and buffers, as the NIC would read them.
 */
class DisniPostCacheSteadyStateTest {

    @Test
    void freshImmediatesAndFreshReceiveBuffersHitTheCachesAndAllocateNothing() throws Exception {
        SendCallCache sends = new SendCallCache(NativeCalls.SilentPostSend::new, 64, 32);
        RecvCallCache recvs = new RecvCallCache(NativeCalls.SilentPostRecv::new, 64);
        SendWr[] batch = {new SendWr().opcode(WrOpcode.SEND), new SendWr().opcode(WrOpcode.WRITE_WITH_IMM).signaled(true)};
        RecvWr[] reposts = new RecvWr[4];
        for (int i = 0; i < reposts.length; i++) {
            reposts[i] = new RecvWr();
        }
        long[] tokens = new long[2];
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        long before = 0;
        int rounds = 20_000;
        for (int round = -1_000; round < rounds; round++) {
            if (round == 0) {
                before = threads.getThreadAllocatedBytes(tid);
            }
            batch[0].wrId(round).setSge(0x1000 + round * 64L, 64, 1);
            batch[1].wrId(round).immData(0x5000_0000 + round).remote(0x9000L + round * 4096L, 5).setSge(0x2000 + round * 64L, 4096, 1);
            tokens[0] = round * 2L;
            tokens[1] = round * 2L + 1;
            sends.post(batch, 0, 2, tokens);
            for (int i = 0; i < reposts.length; i++) {
                reposts[i].setSge(0x100_0000L + (round * 4L + i) * 8192, 8192, 3); // a fresh buffer each time
            }
            recvs.post(reposts, 0, reposts.length, 77);
        }
        long allocated = threads.getThreadAllocatedBytes(tid) - before;
        assertThat(sends.builds()).as("send calls built").isEqualTo(1);
        assertThat(recvs.builds()).as("receive calls built").isEqualTo(1);
        assertThat(allocated).as("bytes allocated by %d rounds of a 2-request send and a 4-buffer repost", rounds)
                .isLessThan(16 * 1024);

        int last = rounds - 1;
        ByteBuffer send = sends.nativeBuffer(batch, 0, 2);
        assertThat(send.getInt(CommandBuffers.SEND_WR_SIZE + CommandBuffers.SEND_IMM))
                .as("the immediate the NIC reads").isEqualTo(DisniCodes.immToWire(0x5000_0000 + last));
        ByteBuffer recv = recvs.nativeBuffer(reposts, 0, reposts.length);
        for (int i = 0; i < reposts.length; i++) {
            int at = reposts.length * CommandBuffers.RECV_WR_SIZE + i * CommandBuffers.SGE_SIZE;
            assertThat(recv.getLong(at)).as("receive %d's buffer", i).isEqualTo(0x100_0000L + (last * 4L + i) * 8192);
            assertThat(recv.getInt(at + CommandBuffers.SGE_LENGTH)).isEqualTo(8192);
            assertThat(recv.getInt(at + CommandBuffers.SGE_LKEY)).isEqualTo(3);
        }
    }

    /** The native array is written to only if it holds, field by field, the requests the call was built from. */
    @Test
    void aCommandBufferIsUsedOnlyIfItsLayoutMatchesTheBuiltRequests() throws Exception {
        SendWr wr = new SendWr().opcode(WrOpcode.WRITE_WITH_IMM).immData(42).remote(0x9000, 5);
        wr.setSge(0x2000, 64, 1);
        java.util.List<com.ibm.disni.verbs.IbvSendWR> built = SendCallCache.toIbv(new SendWr[] {wr}, 0, 1, new long[] {7});
        NativeCalls.SilentPostSend call = new NativeCalls.SilentPostSend(built);
        assertThat(CommandBuffers.sendBuffer(call, built)).isNotNull();
        java.util.List<com.ibm.disni.verbs.IbvSendWR> other = SendCallCache.toIbv(new SendWr[] {wr.immData(43)}, 0, 1, new long[] {7});
        assertThat(CommandBuffers.sendBuffer(call, other)).as("another immediate than the one built").isNull();
        assertThat(CommandBuffers.sendBuffer(new FakeCalls.PostSend(built), built)).as("no native array at all").isNull();
        call.free();

        RecvWr r = new RecvWr();
        r.setSge(0x3000, 128, 9);
        java.util.List<com.ibm.disni.verbs.IbvRecvWR> recv = RecvCallCache.toIbv(new RecvWr[] {r}, 0, 1, 11);
        NativeCalls.SilentPostRecv rc = new NativeCalls.SilentPostRecv(recv);
        assertThat(CommandBuffers.recvBuffer(rc, recv)).isNotNull();
        r.setSge(0x3000, 256, 9);
        assertThat(CommandBuffers.recvBuffer(rc, RecvCallCache.toIbv(new RecvWr[] {r}, 0, 1, 11))).isNull();
        rc.free();
    }
}
