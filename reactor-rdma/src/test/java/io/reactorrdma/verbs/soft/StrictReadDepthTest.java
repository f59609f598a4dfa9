package io.reactorrdma.verbs.soft;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.VerbsFixture;
import io.reactorrdma.verbs.work.WcOpcode;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;
import io.reactorrdma.verbs.soft.fault.ReadCompletionFault;
import io.reactorrdma.verbs.soft.fault.SoftFaults;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.reactorrdma.verbs.VerbsFixture.post;
import static io.reactorrdma.verbs.VerbsFixture.rdma;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Strict mode's cap on RDMA READs outstanding (QpAttributes.withMaxRdAtomic, ibv max_rd_atomic):
 * an RNIC stalls its send queue behind the excess, strict mode refuses the post instead. READs run
 * within postSend in the soft provider, so the READ-completion fault keeps them outstanding.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StrictReadDepthTest {

    private VerbsFixture f;

    @AfterEach
    void close() {
        if (f != null) {
            f.close();
        }
    }

    private ReadCompletionFault pairWithHeldReads(boolean strict, int maxRdAtomic) {
        ReadCompletionFault reads = new ReadCompletionFault();
        SoftConfig a = SoftConfig.defaults().withStrict(strict);
        f = new VerbsFixture(SoftContext.openLoopback(a, SoftFaults.none().withReadCompletionFault(reads)),
                SoftContext.openLoopback(SoftConfig.defaults().withStrict(strict)),
                cq -> QpAttributes.create(cq).withMaxRdAtomic(maxRdAtomic));
        return reads;
    }

    private SendWr read(long wrId) {
        return rdma(WrOpcode.READ, wrId, f.mrA, (int) wrId * 64, 64, f.mrB.address() + wrId * 64, f.mrB.rkey());
    }

    @Test
    void aPostBeyondMaxRdAtomicOutstandingReadsIsRefusedWithNothingPosted() {
        ReadCompletionFault reads = pairWithHeldReads(true, 2);
        reads.hold();
        post(f.qpA, read(1));
        post(f.qpA, read(2));
        assertThat(reads.held()).isEqualTo(2);
        int free = f.qpA.freeSendSlots();
        assertThatThrownBy(() -> post(f.qpA, read(3))).isInstanceOf(VerbsException.class)
                .hasMessageContaining("2 RDMA READ(s) outstanding").hasMessageContaining("maxRdAtomic of 2")
                .hasMessageContaining("nothing was posted").hasMessageContaining("withMaxRdAtomic");
        assertThat(f.qpA.freeSendSlots()).as("nothing posted").isEqualTo(free);

        reads.release();
        List<WorkCompletion> done = f.await(f.cqA, 2);
        assertThat(done).extracting(WorkCompletion::wrId).containsExactly(1L, 2L);
        assertThat(done).allMatch(wc -> wc.isSuccess() && wc.opcode() == WcOpcode.RDMA_READ);
        post(f.qpA, read(3), read(4)); // completed READs no longer count
        assertThat(f.await(f.cqA, 2)).extracting(WorkCompletion::wrId).containsExactly(3L, 4L);
    }

    @Test
    void oneBatchWithMoreReadsThanMaxRdAtomicIsRefused() {
        pairWithHeldReads(true, 2);
        assertThatThrownBy(() -> post(f.qpA, read(1), read(2), read(3))).isInstanceOf(VerbsException.class)
                .hasMessageContaining("0 RDMA READ(s) outstanding").hasMessageContaining("adds 3");
        post(f.qpA, read(1), read(2));
        assertThat(f.await(f.cqA, 2)).allMatch(WorkCompletion::isSuccess);
    }

    @Test
    void anUnsignaledReadCountsUntilItCompletes() {
        ReadCompletionFault reads = pairWithHeldReads(true, 1);
        reads.hold();
        post(f.qpA, read(1).signaled(false));
        assertThatThrownBy(() -> post(f.qpA, read(2))).isInstanceOf(VerbsException.class);
        reads.release();
        post(f.qpA, read(2)); // the unsignaled one completed (no completion to poll): one READ outstanding at most
        assertThat(f.awaitOne(f.cqA).wrId()).isEqualTo(2);
    }

    @Test
    void withoutStrictModeTheExcessIsAllowed() {
        ReadCompletionFault reads = pairWithHeldReads(false, 1);
        reads.hold();
        post(f.qpA, read(1), read(2), read(3));
        assertThat(reads.held()).isEqualTo(3);
        reads.release();
        assertThat(f.await(f.cqA, 3)).extracting(WorkCompletion::wrId).containsExactly(1L, 2L, 3L);
    }

    @Test
    void maxRdAtomicIsAByteAndDefaultsToFour() {
        f = new VerbsFixture(SoftContext.openLoopback(SoftConfig.defaults()), SoftContext.openLoopback(SoftConfig.defaults()),
                QpAttributes::create);
        assertThat(f.qpA.attributes().maxRdAtomic()).isEqualTo(QpAttributes.DEFAULT_MAX_RD_ATOMIC).isEqualTo(4);
        assertThatThrownBy(() -> QpAttributes.create(f.cqA).withMaxRdAtomic(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1..255");
        assertThatThrownBy(() -> QpAttributes.create(f.cqA).withMaxRdAtomic(256)).isInstanceOf(IllegalArgumentException.class);
        post(f.qpA, read(1), read(2), read(3), read(4));
        assertThat(f.await(f.cqA, 4)).allMatch(WorkCompletion::isSuccess);
    }
}
