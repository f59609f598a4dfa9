package io.reactorrdma.verbs.disni.work;

import com.ibm.disni.verbs.IbvWC;
import io.reactorrdma.verbs.QpState;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.work.WcOpcode;
import io.reactorrdma.verbs.work.WcStatus;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;
import io.reactorrdma.verbs.disni.calls.DisniCodes;
import io.reactorrdma.verbs.work.tracking.QpRecord;
import io.reactorrdma.verbs.work.tracking.QpTable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CompletionMapperTest {

    private final QpTable table = new QpTable();
    private final CompletionMapper mapper = new CompletionMapper(table);
    private final WorkCompletion out = new WorkCompletion();

    private static IbvWC wc(long wrId, IbvWC.IbvWcStatus status, int opcode, int byteLen, int qpNum) {
        IbvWC w = new IbvWC();
        w.setWr_id(wrId);
        w.setStatus(status.ordinal());
        w.setOpcode(opcode);
        w.setByte_len(byteLen);
        w.setQp_num(qpNum);
        return w;
    }

    private static long[] post(QpRecord qp, SendWr... wrs) {
        long[] tokens = new long[wrs.length];
        for (int i = 0; i < wrs.length; i++) {
            tokens[i] = qp.sendToken(qp.work.nextSendSlot(i));
        }
        qp.work.recordSends(wrs, 0, wrs.length);
        qp.work.publishSends(wrs.length);
        return tokens;
    }

    private static SendWr send(long wrId, WrOpcode op, int len) {
        SendWr w = new SendWr().wrId(wrId).opcode(op);
        w.setSge(0x1000, len, 1);
        return w;
    }

    @Test
    void aSignaledCompletionReportsTheCallersWrIdAndRetiresTheUnsignaledBeforeIt() {
        QpRecord qp = table.add(4, 4);
        qp.qpNum(0x11);
        long[] t = post(qp, send(7, WrOpcode.SEND, 8).signaled(false), send(8, WrOpcode.WRITE, 16).signaled(false),
                send(9, WrOpcode.READ, 32));
        assertThat(qp.work.freeSendSlots()).isEqualTo(1);
        assertThat(mapper.map(wc(t[2], IbvWC.IbvWcStatus.IBV_WC_SUCCESS, 2, 32, 0x11), out)).isTrue();
        assertThat(out.wrId()).isEqualTo(9);
        assertThat(out.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(out.opcode()).isEqualTo(WcOpcode.RDMA_READ);
        assertThat(out.byteLen()).isEqualTo(32);
        assertThat(out.qpNum()).isEqualTo(0x11);
        assertThat(qp.work.freeSendSlots()).isEqualTo(4);
    }

    @Test
    void theSendRingWrapsAround() {
        QpRecord qp = table.add(2, 2);
        for (int round = 0; round < 5; round++) {
            long[] t = post(qp, send(round, WrOpcode.SEND, 1), send(100 + round, WrOpcode.SEND, 1));
            assertThat(qp.work.freeSendSlots()).isZero();
            assertThat(mapper.map(wc(t[0], IbvWC.IbvWcStatus.IBV_WC_SUCCESS, 0, 0, 1), out)).isTrue();
            assertThat(out.wrId()).isEqualTo(round);
            assertThat(mapper.map(wc(t[1], IbvWC.IbvWcStatus.IBV_WC_SUCCESS, 0, 0, 1), out)).isTrue();
            assertThat(out.wrId()).isEqualTo(100 + round);
            assertThat(qp.work.freeSendSlots()).isEqualTo(2);
        }
    }

    @Test
    void anErrorCompletionTakesOpcodeAndQueuePairFromTheProviderAndFailsTheQueuePair() {
        QpRecord qp = table.add(4, 4);
        qp.qpNum(0x22);
        qp.established();
        long[] t = post(qp, send(5, WrOpcode.SEND, 64));
        IbvWC bad = wc(t[0], IbvWC.IbvWcStatus.IBV_WC_REM_INV_REQ_ERR, 0, 0, 0);
        bad.setOpcode(1234); // DiSNI leaves the rest of a failed completion stale
        bad.setQp_num(0x99);
        assertThat(mapper.map(bad, out)).isTrue();
        assertThat(out.status()).isEqualTo(WcStatus.REM_INV_REQ_ERR);
        assertThat(out.opcode()).isEqualTo(WcOpcode.SEND);
        assertThat(out.qpNum()).isEqualTo(0x22);
        assertThat(out.errorDetail()).contains("IBV_WC_REM_INV_REQ_ERR", "SEND of 64 bytes", "wrId 5");
        assertThat(qp.state()).isEqualTo(QpState.ERROR);
        assertThat(qp.errorCause()).isEqualTo(out.errorDetail());
        assertThat(qp.work.freeSendSlots()).isEqualTo(4);
    }

    @Test
    void statusesTheSpiDoesNotListBecomeGeneralErrorWithTheirName() {
        QpRecord qp = table.add(4, 4);
        long[] t = post(qp, send(5, WrOpcode.WRITE, 8));
        mapper.map(wc(t[0], IbvWC.IbvWcStatus.IBV_WC_FATAL_ERR, 0, 0, 0), out);
        assertThat(out.status()).isEqualTo(WcStatus.GENERAL_ERR);
        assertThat(out.errorDetail()).contains("IBV_WC_FATAL_ERR");
        assertThat(out.opcode()).isEqualTo(WcOpcode.RDMA_WRITE);
    }

    @Test
    void receivesCompleteInPostingOrderWithImmediateAndFlushes() {
        QpRecord qp = table.add(4, 4);
        qp.qpNum(0x33);
        qp.work.recordRecvs(new long[]{41, 42, 43}, 3);
        assertThat(qp.work.freeRecvSlots()).isEqualTo(1);
        IbvWC imm = wc(qp.recvToken(), IbvWC.IbvWcStatus.IBV_WC_SUCCESS, 129, 70000, 0x33);
        imm.setWc_flags(DisniCodes.IBV_WC_WITH_IMM);
        imm.setImm_data(DisniCodes.immToWire(42));
        assertThat(mapper.map(imm, out)).isTrue();
        assertThat(out.wrId()).isEqualTo(41);
        assertThat(out.opcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(out.byteLen()).isEqualTo(70000);
        assertThat(out.hasImm()).isTrue();
        assertThat(out.immData()).isEqualTo(42);
        assertThat(mapper.map(wc(qp.recvToken(), IbvWC.IbvWcStatus.IBV_WC_SUCCESS, 128, 5, 0x33), out)).isTrue();
        assertThat(out.wrId()).isEqualTo(42);
        assertThat(out.opcode()).isEqualTo(WcOpcode.RECV);
        assertThat(out.hasImm()).isFalse();
        assertThat(mapper.map(wc(qp.recvToken(), IbvWC.IbvWcStatus.IBV_WC_WR_FLUSH_ERR, 7, 0, 0), out)).isTrue();
        assertThat(out.wrId()).isEqualTo(43);
        assertThat(out.status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(out.opcode()).isEqualTo(WcOpcode.RECV);
        assertThat(out.qpNum()).isEqualTo(0x33);
        assertThat(qp.work.freeRecvSlots()).isEqualTo(4);
        assertThat(mapper.map(wc(qp.recvToken(), IbvWC.IbvWcStatus.IBV_WC_SUCCESS, 128, 5, 0x33), out))
                .as("a receive completion with nothing posted is not ours").isFalse();
    }

    @Test
    void completionsOfADestroyedQueuePairAreDroppedEvenWhenItsIndexIsReused() {
        QpRecord old = table.add(4, 4);
        long[] t = post(old, send(1, WrOpcode.SEND, 1));
        table.remove(old);
        assertThat(mapper.map(wc(t[0], IbvWC.IbvWcStatus.IBV_WC_WR_FLUSH_ERR, 0, 0, 0), out)).isFalse();
        QpRecord reused = table.add(4, 4); // the freed index again, with the next generation (QpTableTest)
        assertThat(mapper.map(wc(t[0], IbvWC.IbvWcStatus.IBV_WC_WR_FLUSH_ERR, 0, 0, 0), out)).isFalse();
        assertThat(reused.work.freeSendSlots()).isEqualTo(4);
    }
}
