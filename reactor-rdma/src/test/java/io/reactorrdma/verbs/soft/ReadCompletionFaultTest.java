package io.reactorrdma.verbs.soft;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.VerbsFixture;
import io.reactorrdma.verbs.work.WcOpcode;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;
import io.reactorrdma.verbs.soft.fault.CompletionFault;
import io.reactorrdma.verbs.soft.fault.ReadCompletionFault;
import io.reactorrdma.verbs.soft.fault.SoftFaults;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.reactorrdma.verbs.VerbsFixture.assertFilled;
import static io.reactorrdma.verbs.VerbsFixture.fill;
import static io.reactorrdma.verbs.VerbsFixture.post;
import static io.reactorrdma.verbs.VerbsFixture.rdma;
import static io.reactorrdma.verbs.VerbsFixture.send;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fault hooks that give completions RNIC timing: a READ's completion (and the later ones of its
 * send queue, which complete in order) held back until the test releases it, and the existing
 * CompletionFault delaying a queue pair's send completions.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReadCompletionFaultTest {

    private VerbsFixture f;

    @AfterEach
    void close() {
        if (f != null) {
            f.close();
        }
    }

    private void open(SoftFaults faultsOfA) {
        f = new VerbsFixture(SoftContext.openLoopback(SoftConfig.defaults(), faultsOfA),
                SoftContext.openLoopback(SoftConfig.defaults()), QpAttributes::create);
    }

    private static int pollOnce(VerbsFixture f) {
        return f.cqA.poll(VerbsFixture.newCompletions(8), 8);
    }

    @Test
    void aHeldReadCompletesOnlyWhenReleasedAndTheCompletionsAfterItWaitInOrder() throws Exception {
        ReadCompletionFault reads = new ReadCompletionFault();
        open(SoftFaults.none().withReadCompletionFault(reads));
        fill(f.mrB, 4096, 300, 9);
        f.postRecv(f.qpB, f.mrB, 50, 0, 64);
        reads.hold();
        post(f.qpA, rdma(WrOpcode.READ, 1, f.mrA, 0, 300, f.mrB.address() + 4096, f.mrB.rkey()), send(2, f.mrA, 512, 8));
        assertThat(reads.held()).isEqualTo(1);
        assertThat(f.awaitOne(f.cqB).wrId()).as("the SEND after the READ reached the peer").isEqualTo(50);
        assertThat(pollOnce(f)).as("neither the READ's completion nor the SEND's, which follows it").isZero();
        f.cqA.requestNotification();
        assertThat(f.cqA.awaitNotification(50, TimeUnit.MILLISECONDS)).as("nothing completed: no event").isFalse();

        reads.release();
        assertThat(reads.held()).isZero();
        assertThat(f.cqA.awaitNotification(20, TimeUnit.SECONDS)).as("the release wakes the armed queue").isTrue();
        List<WorkCompletion> wcs = f.await(f.cqA, 2);
        assertThat(wcs.get(0).opcode()).isEqualTo(WcOpcode.RDMA_READ);
        assertThat(wcs.get(0).wrId()).isEqualTo(1);
        assertThat(wcs.get(0).byteLen()).isEqualTo(300);
        assertThat(wcs.get(1).opcode()).isEqualTo(WcOpcode.SEND);
        assertFilled(f.mrA, 0, 300, 9);

        post(f.qpA, rdma(WrOpcode.READ, 3, f.mrA, 0, 8, f.mrB.address(), f.mrB.rkey()));
        assertThat(f.awaitOne(f.cqA).wrId()).as("released: READs complete at once again").isEqualTo(3);
    }

    @Test
    void completionsBeforeTheHeldReadAreNotHeld() {
        ReadCompletionFault reads = new ReadCompletionFault();
        open(SoftFaults.none().withReadCompletionFault(reads));
        f.postRecv(f.qpB, f.mrB, 50, 0, 64);
        reads.hold();
        post(f.qpA, send(1, f.mrA, 0, 8), rdma(WrOpcode.READ, 2, f.mrA, 64, 8, f.mrB.address(), f.mrB.rkey()));
        assertThat(f.awaitOne(f.cqA).wrId()).isEqualTo(1);
        assertThat(pollOnce(f)).isZero();
        reads.release();
        assertThat(f.awaitOne(f.cqA).wrId()).isEqualTo(2);
    }

    @Test
    void aReleaseWhileTheSendQueueWaitsForReceivesIsNotLost() throws Exception {
        ReadCompletionFault reads = new ReadCompletionFault();
        f = new VerbsFixture(SoftContext.openLoopback(SoftConfig.defaults(), SoftFaults.none().withReadCompletionFault(reads)),
                SoftContext.openLoopback(SoftConfig.defaults()),
                cq -> QpAttributes.create(cq).withRnrRetry(QpAttributes.RNR_RETRY_INFINITE));
        reads.hold();
        post(f.qpA, rdma(WrOpcode.READ, 1, f.mrA, 0, 8, f.mrB.address(), f.mrB.rkey()), send(2, f.mrA, 0, 8)); // the SEND waits: RNR
        reads.release();
        assertThat(f.awaitOne(f.cqA).wrId()).as("the READ, released though its send queue is stalled").isEqualTo(1);
        f.postRecv(f.qpB, f.mrB, 50, 0, 64);
        assertThat(f.awaitOne(f.cqA).wrId()).isEqualTo(2);
    }

    @Test
    void aReleaseWhileAnotherThreadRunsTheSendQueueIsNotLostToTheNextHold() {
        // The racing point: a test releases and at once holds again while a post is running the
        // send queue (here: from inside that post, as the second completion is held back). The
        // release leaves the push to the running thread; the hold that follows must not cancel it.
        ReadCompletionFault sends = new ReadCompletionFault();
        open(SoftFaults.none().withReadCompletionFault(sends));
        f.postRecv(f.qpB, f.mrB, 50, 0, 64);
        f.postRecv(f.qpB, f.mrB, 51, 64, 64);
        int[] heldSoFar = {0};
        sends.onEachHeld(() -> {
            if (++heldSoFar[0] == 2) {
                sends.release();
                sends.holdEverySend();
            }
        });
        sends.holdEverySend();
        post(f.qpA, send(1, f.mrA, 0, 8), send(2, f.mrA, 8, 8));
        sends.onEachHeld(null);
        assertThat(f.await(f.cqA, 2)).as("both completions, held before the release").extracting(WorkCompletion::wrId)
                .containsExactly(1L, 2L);
        assertThat(sends.heldCompletions()).isZero();
        sends.release();
    }

    @Test
    void theCompletionFaultDelaysSendCompletions() {
        CompletionFault fault = new CompletionFault();
        open(SoftFaults.none().withCompletionFault(fault));
        fault.delay(f.qpA.qpNum());
        f.postRecv(f.qpB, f.mrB, 50, 0, 64);
        f.postRecv(f.qpB, f.mrB, 51, 64, 64);
        post(f.qpA, send(1, f.mrA, 0, 8), send(2, f.mrA, 0, 8));
        assertThat(f.await(f.cqB, 2)).as("delivered").allMatch(WorkCompletion::isSuccess);
        assertThat(pollOnce(f)).as("the send completions are held back").isZero();
        fault.deliver();
        assertThat(f.await(f.cqA, 2)).extracting(WorkCompletion::wrId).containsExactly(1L, 2L);
    }
}
