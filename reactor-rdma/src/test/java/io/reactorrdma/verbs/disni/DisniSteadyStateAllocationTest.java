package io.reactorrdma.verbs.disni;

import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPostSend;
import io.reactorrdma.verbs.work.RecvWr;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;
import io.reactorrdma.verbs.disni.calls.FakeCalls;
import io.reactorrdma.verbs.disni.calls.RecvCallCache;
import io.reactorrdma.verbs.disni.calls.SendCallCache;
import io.reactorrdma.verbs.disni.work.CompletionMapper;
import io.reactorrdma.verbs.work.tracking.QpRecord;
import io.reactorrdma.verbs.work.tracking.QpTable;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The provider's own Java work per post and poll — tokens, posted-work records, patching a cached
 * call, decoding completions — allocates nothing once the shapes are cached. (DiSNI's native
 * {@code execute()} is replaced by a fake that does nothing; on hardware it is one JNI call.)
 */
class DisniSteadyStateAllocationTest {

    /** A cached call whose execute() does nothing, as cheap as the JNI call it stands for. */
    private static final class SilentPostSend extends SVCPostSend {
        private final FakeCalls.PostSend state;

        SilentPostSend(List<IbvSendWR> wrs) {
            state = new FakeCalls.PostSend(wrs);
        }

        @Override
        public SVCPostSend execute() {
            return this;
        }

        @Override
        public boolean isValid() {
            return true;
        }

        @Override
        public SVCPostSend free() {
            return this;
        }

        @Override
        public SendWRMod getWrMod(int index) {
            return state.getWrMod(index);
        }
    }

    @Test
    void postingAndPollingAllocateNothingInSteadyState() throws Exception {
        QpTable table = new QpTable();
        QpRecord qp = table.add(32, 32);
        qp.qpNum(7);
        CompletionMapper mapper = new CompletionMapper(table);
        SendCallCache sends = new SendCallCache(SilentPostSend::new, 64, 32);
        RecvCallCache recvs = new RecvCallCache(FakeCalls.PostRecv::new, 64); // its execute() only counts
        SendWr[] batch = new SendWr[16];
        for (int i = 0; i < 16; i++) {
            batch[i] = new SendWr().opcode(i % 2 == 0 ? WrOpcode.SEND : WrOpcode.WRITE).signaled(i == 15);
        }
        RecvWr[] ring = new RecvWr[16];
        for (int i = 0; i < 16; i++) {
            ring[i] = new RecvWr();
            ring[i].setSge(0x10000 + i * 4096L, 4096, 3);
        }
        long[] tokens = new long[16];
        long[] recvIds = new long[16];
        IbvWC[] ibvWcs = new IbvWC[17];
        for (int i = 0; i < ibvWcs.length; i++) {
            ibvWcs[i] = new IbvWC();
        }
        WorkCompletion[] wcs = new WorkCompletion[17];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }

        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        long before = 0;
        int rounds = 20_000;
        for (int round = -1_000; round < rounds; round++) {
            if (round == 0) {
                before = threads.getThreadAllocatedBytes(tid);
            }
            for (int i = 0; i < 16; i++) {
                batch[i].wrId(round * 16L + i).remote(0x9000 + i, 5).setSge(0x1000 + i * 64L, 64, 1);
                tokens[i] = qp.sendToken(qp.work.nextSendSlot(i));
                recvIds[i] = round * 16L + i;
            }
            qp.work.recordSends(batch, 0, 16);
            qp.work.publishSends(16);
            sends.post(batch, 0, 16, tokens);
            qp.work.recordRecvs(recvIds, 16);
            recvs.post(ring, 0, 16, qp.recvToken());
            // the NIC's answer: one signaled send completion, 16 receive completions
            ibvWcs[0].setWr_id(tokens[15]);
            ibvWcs[0].setStatus(0);
            for (int i = 1; i <= 16; i++) {
                ibvWcs[i].setWr_id(qp.recvToken());
                ibvWcs[i].setStatus(0);
                ibvWcs[i].setOpcode(128);
            }
            for (int i = 0; i < 17; i++) {
                if (!mapper.map(ibvWcs[i], wcs[i])) {
                    throw new AssertionError("completion " + i + " not mapped");
                }
            }
            if (wcs[16].wrId() != round * 16L + 15) {
                throw new AssertionError("receive order broken at round " + round);
            }
        }
        long allocated = threads.getThreadAllocatedBytes(tid) - before;
        assertThat(allocated).as("bytes allocated by %d rounds of 16 sends, 16 receives and 17 completions", rounds)
                .isLessThan(16 * 1024);
        assertThat(sends.builds()).isEqualTo(1);
        assertThat(recvs.builds()).isEqualTo(1);
        assertThat(qp.work.freeSendSlots()).isEqualTo(32);
        assertThat(qp.work.freeRecvSlots()).isEqualTo(32);
    }
}
