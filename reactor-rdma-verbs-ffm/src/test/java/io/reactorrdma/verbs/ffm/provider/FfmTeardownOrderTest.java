package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.CompletionQueue;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.VerbsFixture;
import io.reactorrdma.verbs.ffm.testing.EmulatedRdmaCore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A queue pair's close hands its destruction to the CM thread; a completion queue and a protection domain closed right
 * after it (as send-lat and write-bw do: queue pair, queue, domain) must not be destroyed before that queue pair is:
 * rdma-core refuses with EBUSY, and a driver may still write flushes into the queue (the emulation wrote into a freed
 * queue before it refused as rdma-core does).
 */
class FfmTeardownOrderTest {

    @TempDir
    Path dir;

    private FfmSettings settings() throws Exception {
        Path so = EmulatedRdmaCore.build(dir);
        return new FfmSettings(Optional.of(so), Optional.of(so), "127.0.0.1", FfmSettings.DEFAULT_MAX_INLINE);
    }

    @Test
    @Timeout(120)
    void aQueueAndADomainClosedRightAfterTheirQueuePairWaitForItsTeardown() throws Exception {
        try (FfmContext a = FfmContext.open(settings()); FfmContext b = FfmContext.open(settings())) {
            VerbsFixture f = VerbsFixture.connected(a, b);
            QueuePair qp = f.qpA;
            CompletionQueue cq = f.cqA;
            ProtectionDomain pd = f.pdA;
            CountDownLatch hold = holdCmThread(a); // the queue pair's teardown waits behind it
            qp.close();
            CompletableFuture<Void> closed = CompletableFuture.runAsync(() -> {
                cq.close();
                pd.close();
            });
            assertThat(((FfmQueuePair) qp).teardown()).as("the queue pair is not destroyed yet").isNotDone();
            hold.countDown();
            closed.get(30, TimeUnit.SECONDS); // threw before: ibv_destroy_cq refused, the queue pair still used it
            assertThat(((FfmQueuePair) qp).teardown()).isDone();
        }
    }

    @Test
    @Timeout(120)
    void aQueueOrADomainWithAQueuePairNeverClosedIsRefusedAndStaysUsable() throws Exception {
        try (FfmContext a = FfmContext.open(settings())) {
            ProtectionDomain pd = a.allocPd();
            CompletionQueue cq = a.createCq(64);
            QueuePair qp = a.createQp(pd, QpAttributes.create(cq)); // not connected: no native queue pair yet
            // before: both closed, and a later connect handed rdma_create_qp the freed queue and domain
            assertThatThrownBy(cq::close).isInstanceOf(IllegalStateException.class)
                    .hasMessage("completion queue still has queue pairs that were not closed; close them first");
            assertThatThrownBy(pd::close).isInstanceOf(IllegalStateException.class)
                    .hasMessage("protection domain still has queue pairs that were not closed; close them first");
            a.createQp(pd, QpAttributes.create(cq)).close(); // both still usable
            qp.close();
            cq.close();
            pd.close();
        }
    }

    @Test
    @Timeout(120)
    void twoClosesOfAQueueWaitingForATeardownDestroyItOnce() throws Exception {
        try (FfmContext a = FfmContext.open(settings()); FfmContext b = FfmContext.open(settings())) {
            VerbsFixture f = VerbsFixture.connected(a, b);
            QueuePair qp = f.qpA;
            CompletionQueue cq = f.cqA;
            CountDownLatch hold = holdCmThread(a); // the queue pair's teardown waits behind it
            qp.close();
            CompletableFuture<Void> first = new CompletableFuture<>();
            CompletableFuture<Void> second = new CompletableFuture<>();
            Thread one = closer(cq, first);
            Thread two = closer(cq, second);
            // the racing point: each close is waiting for the teardown, or has returned (the one a close already runs for)
            while (!waitingOrDone(one) || !waitingOrDone(two)) {
                Thread.onSpinWait();
            }
            hold.countDown();
            first.get(30, TimeUnit.SECONDS); // before: both destroyed the queue, the second failed on the closed arena
            second.get(30, TimeUnit.SECONDS);
        }
    }

    /** Keeps {@code ctx}'s CM thread busy until the latch returned is counted down; returns once it is busy. */
    private static CountDownLatch holdCmThread(FfmContext ctx) throws InterruptedException {
        CountDownLatch hold = new CountDownLatch(1);
        CountDownLatch held = new CountDownLatch(1);
        ctx.cm().submit(() -> {
            held.countDown();
            hold.await();
        });
        assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
        return hold;
    }

    private static Thread closer(CompletionQueue cq, CompletableFuture<Void> done) {
        Thread t = new Thread(() -> {
            try {
                cq.close();
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, "closer");
        t.start();
        return t;
    }

    private static boolean waitingOrDone(Thread t) {
        Thread.State s = t.getState();
        return s == Thread.State.TIMED_WAITING || s == Thread.State.TERMINATED;
    }
}
