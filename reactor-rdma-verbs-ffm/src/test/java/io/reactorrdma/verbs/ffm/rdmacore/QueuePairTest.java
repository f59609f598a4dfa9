package io.reactorrdma.verbs.ffm.rdmacore;

import io.reactorrdma.verbs.ffm.abi.VerbsConstants;
import io.reactorrdma.verbs.ffm.testing.EmulatedRdmaCore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Optional;

import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_ACCESS_LOCAL_WRITE;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_ACCESS_REMOTE_READ;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_ACCESS_REMOTE_WRITE;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_MTU_1024;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_QPS_ERR;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_QPS_RTS;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_SEND_INLINE;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_SEND_SIGNALED;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_SEND_SOLICITED;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_WC_LOC_LEN_ERR;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_WC_RDMA_READ;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_WC_RDMA_WRITE;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_WC_RECV;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_WC_RECV_RDMA_WITH_IMM;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_WC_REM_ACCESS_ERR;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_WC_REM_INV_REQ_ERR;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_WC_RNR_RETRY_EXC_ERR;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_WC_SEND;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_WC_SUCCESS;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_WC_WITH_IMM;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_WC_WR_FLUSH_ERR;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_WR_RDMA_READ;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_WR_RDMA_WRITE;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_WR_RDMA_WRITE_WITH_IMM;
import static io.reactorrdma.verbs.ffm.abi.VerbsConstants.IBV_WR_SEND;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Reliable-connected queue pairs through FFM, two connected to each other on the emulated libibverbs: SEND/RECV,
 * WRITE, WRITE_WITH_IMM and READ with the bytes checked, signaled and unsignaled sends, solicited receives, and the
 * errors an RNIC gives (bad rkey, no receive posted, a receive too small, posting before RTS), each moving the failing
 * queue pair to ERR where later work completes flushed.
 */
class QueuePairTest {

    private static final int ALL = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    private static final int REGION = 1 << 20;

    @TempDir
    Path dir;

    private Arena arena;
    private RdmaDevice device;
    private RdmaPd pd;
    private RdmaCompletionChannel channel;
    private RdmaCq cq;
    private RdmaQp a;
    private RdmaQp b;
    private MemorySegment memory;
    private RdmaMr mr;
    private SendWrChain sends;
    private RecvWrChain recvs;
    private MemorySegment wcs;

    @BeforeEach
    void connect() throws Exception {
        arena = Arena.ofShared();
        device = Libibverbs.open(Optional.of(EmulatedRdmaCore.build(dir)), arena).openDevice("emu0");
        pd = device.allocatePd();
        channel = device.createCompletionChannel();
        cq = device.createCq(256, channel);
        QpCapacities caps = new QpCapacities(32, 32, 4, 1, 64);
        a = pd.createQp(cq, cq, caps);
        b = pd.createQp(cq, cq, caps);
        for (RdmaQp[] pair : new RdmaQp[][]{{a, b}, {b, a}}) {
            pair[0].toInit(ALL);
            pair[0].toRtr(pair[1].qpNum(), IBV_MTU_1024, 4);
            pair[0].toRts(4, 0); // RNR fails at once: the emulation waits only for rnr_retry 7
        }
        memory = arena.allocate(REGION, 4096);
        mr = pd.register(memory, ALL);
        sends = new SendWrChain(8, 4);
        recvs = new RecvWrChain(8);
        wcs = RdmaCq.completions(arena, 16);
    }

    @AfterEach
    void close() {
        sends.close();
        recvs.close();
        a.close();
        b.close();
        mr.close();
        cq.close();
        channel.close();
        pd.close();
        device.close();
        arena.close();
    }

    @Test
    void aSendLandsInThePeersReceiveWithBothCompletions() {
        assertThat(a.state()).isEqualTo(IBV_QPS_RTS);
        fill(0, 4096, 11);
        recvs.receive(0, 500, address(65536), 8192, mr.lkey());
        b.postRecv(recvs, 1);
        sends.request(0, 100, IBV_WR_SEND, IBV_SEND_SIGNALED | IBV_SEND_SOLICITED).sge(0, address(0), 4096, mr.lkey());
        cq.requestNotification(true);
        a.postSend(sends, 1);
        assertThat(cq.poll(wcs, 16)).isEqualTo(2);
        assertThat(completion(0)).isEqualTo(new int[]{IBV_WC_RECV, IBV_WC_SUCCESS, 4096, b.qpNum()});
        assertThat(WorkCompletions.wrId(wcs, 0)).isEqualTo(500);
        assertThat(completion(1)).isEqualTo(new int[]{IBV_WC_SEND, IBV_WC_SUCCESS, 0, a.qpNum()});
        assertThat(WorkCompletions.wrId(wcs, 1)).isEqualTo(100);
        assertThat(memory.asSlice(65536, 4096).mismatch(memory.asSlice(0, 4096))).isEqualTo(-1);
        assertThat(channel.awaitEvent()).as("the solicited receive's event").isEqualTo(cq.address());
        cq.ackEvents(1);
    }

    @Test
    void anUnsignaledSendCompletesOnlyAtTheReceiverAndInlineNeedsNoKey() {
        fill(0, 32, 3);
        recvs.receive(0, 1, address(4096), 64, mr.lkey());
        b.postRecv(recvs, 1);
        sends.request(0, 2, IBV_WR_SEND, IBV_SEND_INLINE).sge(0, address(0), 32, 0xdead);
        a.postSend(sends, 1);
        assertThat(cq.poll(wcs, 16)).isEqualTo(1);
        assertThat(completion(0)).isEqualTo(new int[]{IBV_WC_RECV, IBV_WC_SUCCESS, 32, b.qpNum()});
        assertThat(memory.asSlice(4096, 32).mismatch(memory.asSlice(0, 32))).isEqualTo(-1);
    }

    @Test
    void writeWithImmediateAndReadMoveTheBytesOneSided() {
        fill(0, 16384, 7);
        recvs.receive(0, 9, address(900_000), 0, mr.lkey());
        b.postRecv(recvs, 1);
        sends.request(0, 1, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED).sge(0, address(0), 8192, mr.lkey())
                .remote(0, address(200_000), mr.rkey());
        sends.request(1, 2, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_SEND_SIGNALED).sge(1, address(8192), 8192, mr.lkey())
                .remote(1, address(208_192), mr.rkey()).immediate(1, 0x1234);
        sends.request(2, 3, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED).sge(2, address(400_000), 16384, mr.lkey())
                .remote(2, address(200_000), mr.rkey());
        a.postSend(sends, 3);
        assertThat(cq.poll(wcs, 16)).isEqualTo(4);
        assertThat(completion(0)).isEqualTo(new int[]{IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS, 0, a.qpNum()});
        assertThat(completion(1)).isEqualTo(new int[]{IBV_WC_RECV_RDMA_WITH_IMM, IBV_WC_SUCCESS, 8192, b.qpNum()});
        assertThat(WorkCompletions.flags(wcs, 1) & IBV_WC_WITH_IMM).isNotZero();
        assertThat(WorkCompletions.immediate(wcs, 1)).isEqualTo(0x1234);
        assertThat(completion(2)).isEqualTo(new int[]{IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS, 0, a.qpNum()});
        assertThat(completion(3)).isEqualTo(new int[]{IBV_WC_RDMA_READ, IBV_WC_SUCCESS, 16384, a.qpNum()});
        assertThat(memory.asSlice(400_000, 16384).mismatch(memory.asSlice(0, 16384))).isEqualTo(-1);
    }

    @Test
    void aBadRkeyIsARemoteAccessErrorAndFlushesWhatFollows() {
        sends.request(0, 1, IBV_WR_RDMA_WRITE, 0).sge(0, address(0), 64, mr.lkey()).remote(0, address(0), mr.rkey() + 1);
        a.postSend(sends, 1);
        assertThat(cq.poll(wcs, 16)).isEqualTo(1);
        assertThat(failed(0)).isEqualTo(new int[]{IBV_WC_REM_ACCESS_ERR, a.qpNum()});
        assertThat(a.state()).isEqualTo(IBV_QPS_ERR);
        sends.request(0, 2, IBV_WR_SEND, 0).sge(0, address(0), 64, mr.lkey());
        a.postSend(sends, 1);
        assertThat(cq.poll(wcs, 16)).isEqualTo(1);
        assertThat(failed(0)).isEqualTo(new int[]{IBV_WC_WR_FLUSH_ERR, a.qpNum()});
    }

    @Test
    void withRnrRetriedForeverASendWaitsForAReceiveAndTheSendsBehindItWaitToo() {
        QpCapacities caps = new QpCapacities(32, 32, 4, 1, 64);
        try (RdmaQp c = pd.createQp(cq, cq, caps); RdmaQp d = pd.createQp(cq, cq, caps)) {
            for (RdmaQp[] pair : new RdmaQp[][]{{c, d}, {d, c}}) {
                pair[0].toInit(ALL);
                pair[0].toRtr(pair[1].qpNum(), IBV_MTU_1024, 4);
                pair[0].toRts(4, 7);
            }
            sends.request(0, 1, IBV_WR_SEND, IBV_SEND_SIGNALED).sge(0, address(0), 64, mr.lkey());
            sends.request(1, 2, IBV_WR_SEND, IBV_SEND_SIGNALED | IBV_SEND_INLINE).sge(1, address(64), 8, mr.lkey());
            c.postSend(sends, 2);
            assertThat(cq.poll(wcs, 16)).as("both wait: the first for a receive, the second behind it").isZero();
            d.postRecv(recvs.receive(0, 10, address(4096), 64, mr.lkey()), 1);
            assertThat(cq.poll(wcs, 16)).as("the first ran: its receive and its send").isEqualTo(2);
            d.postRecv(recvs.receive(0, 11, address(8192), 64, mr.lkey()), 1);
            assertThat(cq.poll(wcs, 16)).isEqualTo(2);
            assertThat(WorkCompletions.status(wcs, 0)).isEqualTo(VerbsConstants.IBV_WC_SUCCESS);
            assertThat(WorkCompletions.byteLen(wcs, 0)).as("the inline payload, copied when it was posted").isEqualTo(8);
        }
    }

    @Test
    void aQueuePairThatFailsAsTheResponderFlushesTheSendsItHasWaiting() {
        QpCapacities caps = new QpCapacities(32, 32, 4, 1, 64);
        try (RdmaQp c = pd.createQp(cq, cq, caps); RdmaQp d = pd.createQp(cq, cq, caps)) {
            for (RdmaQp[] pair : new RdmaQp[][]{{c, d}, {d, c}}) {
                pair[0].toInit(ALL);
                pair[0].toRtr(pair[1].qpNum(), IBV_MTU_1024, 4);
                pair[0].toRts(4, 7);
            }
            sends.request(0, 1, IBV_WR_SEND, IBV_SEND_SIGNALED).sge(0, address(0), 64, mr.lkey());
            c.postSend(sends, 1);
            assertThat(cq.poll(wcs, 16)).as("the send waits for a receive of d").isZero();
            // d writes with a bad rkey: c, the responder, enters ERR, and what it has waiting must complete flushed
            sends.request(0, 2, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED).sge(0, address(0), 64, mr.lkey())
                    .remote(0, address(0), mr.rkey() + 1);
            d.postSend(sends, 1);
            assertThat(c.state()).isEqualTo(IBV_QPS_ERR);
            assertThat(cq.poll(wcs, 16)).isEqualTo(2);
            assertThat(failed(0)).isEqualTo(new int[]{IBV_WC_REM_ACCESS_ERR, d.qpNum()});
            assertThat(failed(1)).as("c's waiting send").isEqualTo(new int[]{IBV_WC_WR_FLUSH_ERR, c.qpNum()});
            assertThat(WorkCompletions.wrId(wcs, 1)).isEqualTo(1);
        }
    }

    @Test
    void aSendWithNoReceivePostedIsAnRnrError() {
        sends.request(0, 1, IBV_WR_SEND, IBV_SEND_SIGNALED).sge(0, address(0), 64, mr.lkey());
        a.postSend(sends, 1);
        assertThat(cq.poll(wcs, 16)).isEqualTo(1);
        assertThat(failed(0)).isEqualTo(new int[]{IBV_WC_RNR_RETRY_EXC_ERR, a.qpNum()});
    }

    @Test
    void aReceiveTooSmallFailsBothSidesAndFlushesTheReceiversQueue() {
        recvs.receive(0, 1, address(4096), 100, mr.lkey()).receive(1, 2, address(8192), 4096, mr.lkey());
        b.postRecv(recvs, 2);
        sends.request(0, 3, IBV_WR_SEND, IBV_SEND_SIGNALED).sge(0, address(0), 200, mr.lkey());
        a.postSend(sends, 1);
        assertThat(cq.poll(wcs, 16)).isEqualTo(3);
        assertThat(failed(0)).isEqualTo(new int[]{IBV_WC_LOC_LEN_ERR, b.qpNum()});
        assertThat(WorkCompletions.wrId(wcs, 0)).isEqualTo(1);
        assertThat(failed(1)).isEqualTo(new int[]{IBV_WC_WR_FLUSH_ERR, b.qpNum()});
        assertThat(WorkCompletions.wrId(wcs, 1)).isEqualTo(2);
        assertThat(failed(2)).isEqualTo(new int[]{IBV_WC_REM_INV_REQ_ERR, a.qpNum()});
        assertThat(WorkCompletions.wrId(wcs, 2)).isEqualTo(3);
    }

    @Test
    void postingBeforeReadyToSendOrSkippingAStateIsRefusedSayingWhich() {
        RdmaQp fresh = pd.createQp(cq, cq, new QpCapacities(4, 4, 1, 1, 0));
        try {
            sends.request(0, 1, IBV_WR_SEND, 0).sge(0, address(0), 8, mr.lkey());
            assertThatThrownBy(() -> fresh.postSend(sends, 1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("refused request 0 of 1 with EINVAL").hasMessageContaining("RTS");
            assertThatThrownBy(() -> fresh.toRts(1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("RESET, INIT, RTR, RTS");
        } finally {
            fresh.close();
        }
    }

    private long address(long offset) {
        return memory.address() + offset;
    }

    private void fill(long offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            memory.set(ValueLayout.JAVA_BYTE, offset + i, (byte) (i * 31 + seed));
        }
    }

    /** {status, qp_num} of failed completion i: what ibv_poll_cq(3) defines for one (its opcode and length are not). */
    private int[] failed(int i) {
        return new int[]{WorkCompletions.status(wcs, i), WorkCompletions.qpNum(wcs, i)};
    }

    /** {opcode, status, byte_len, qp_num} of completion i. */
    private int[] completion(int i) {
        return new int[]{WorkCompletions.opcode(wcs, i), WorkCompletions.status(wcs, i), WorkCompletions.byteLen(wcs, i),
            WorkCompletions.qpNum(wcs, i)};
    }
}
