package io.reactorrdma.verbs.soft;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.VerbsFixture;
import io.reactorrdma.verbs.work.WcStatus;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;
import io.reactorrdma.verbs.soft.fault.PeerFreeze;
import io.reactorrdma.verbs.soft.fault.SoftFaults;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queue pair in ERROR flushes its receives only once no request of the peer is still copying
 * into its memory: the flush is the owner's proof that it may reuse the
 * buffers. The peer (context A) is frozen by the fault hook after its checks, before its copy.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SoftQuiescenceTest {

    /** Context A, which the fault hook can freeze before a copy, connected to context B; closing thaws A and closes all. */
    private static final class FreezablePair implements AutoCloseable {
        final PeerFreeze freeze = new PeerFreeze();
        final SoftContext a = SoftContext.openLoopback(SoftConfig.defaults(), SoftFaults.none().withPeerFreeze(freeze));
        final SoftContext b = SoftContext.openLoopback(SoftConfig.defaults());
        final VerbsFixture f;

        FreezablePair() {
            try {
                f = VerbsFixture.connected(a, b);
            } catch (RuntimeException | Error e) {
                a.close();
                b.close();
                throw e;
            }
        }

        @Override
        public void close() {
            try {
                f.close();
            } finally {
                SoftQueuePair.beforeFlushCheck = null;
                freeze.thaw();
                a.close();
                b.close();
            }
        }
    }

    @Test
    void receivesAreFlushedOnlyAfterAPeerWriteUnderWayHasLanded() throws Exception {
        try (FreezablePair pair = new FreezablePair()) {
            VerbsFixture f = pair.f;
            PeerFreeze freeze = pair.freeze;
            f.postRecv(f.qpB, f.mrB, 7, 0, 64);
            VerbsFixture.fill(f.mrA, 4096, 1000, 3);
            freeze.freezeBefore(WrOpcode.WRITE);
            CompletableFuture<Void> posted = CompletableFuture.runAsync(() -> VerbsFixture.post(f.qpA,
                    VerbsFixture.rdma(WrOpcode.WRITE, 1, f.mrA, 4096, 1000, f.mrB.address() + 8192, f.mrB.rkey())));
            assertThat(freeze.awaitFrozen(Duration.ofSeconds(20))).isTrue();

            f.connB.disconnect(); // B is in ERROR while A's WRITE into B is under way
            WorkCompletion[] wcs = VerbsFixture.newCompletions(4);
            for (int i = 0; i < 50; i++) {
                assertThat(f.cqB.poll(wcs, 4)).as("B flushed its receive while A still copies into B's memory").isZero();
                Thread.sleep(1);
            }

            freeze.thaw();
            posted.get(20, TimeUnit.SECONDS);
            WorkCompletion flush = f.awaitOne(f.cqB);
            assertThat(flush.status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
            assertThat(flush.wrId()).isEqualTo(7);
            VerbsFixture.assertFilled(f.mrB, 8192, 1000, 3); // the WRITE landed before the flush
        }
    }

    /**
     * The peer never marks a receive it takes, so the owner must not flush one that a run completed
     * between the owner's first look at it and its check that no run is under way: that message was
     * sent before the error and its sender was told so. The run ends exactly there (a hook at that
     * point thaws it and waits for it); the owner delivers the message instead of flushing it.
     */
    @Test
    void aReceiveCompletedByARunThatEndsWhileTheOwnerDecidesToFlushIsDelivered() throws Exception {
        try (FreezablePair pair = new FreezablePair()) {
            VerbsFixture f = pair.f;
            PeerFreeze freeze = pair.freeze;
            f.postRecv(f.qpB, f.mrB, 7, 0, 64);
            f.postRecv(f.qpB, f.mrB, 8, 64, 64);
            VerbsFixture.fill(f.mrA, 0, 40, 5);
            freeze.freezeBefore(WrOpcode.SEND);
            CompletableFuture<Void> posted = CompletableFuture.runAsync(() -> VerbsFixture.post(f.qpA, VerbsFixture.send(1, f.mrA, 0, 40)));
            assertThat(freeze.awaitFrozen(Duration.ofSeconds(20))).isTrue();

            f.connB.disconnect(); // B is in ERROR; A's SEND passed its check of B's state before
            SoftQueuePair.beforeFlushCheck = () -> {
                SoftQueuePair.beforeFlushCheck = null;
                freeze.thaw();
                posted.join(); // A's run completes B's receive and counts itself out
            };
            WorkCompletion delivered = f.awaitOne(f.cqB);
            assertThat(delivered.status()).as("a receive the peer completed is not flushed").isEqualTo(WcStatus.SUCCESS);
            assertThat(delivered.wrId()).isEqualTo(7);
            assertThat(delivered.byteLen()).isEqualTo(40);
            VerbsFixture.assertFilled(f.mrB, 0, 40, 5);
            WorkCompletion flushed = f.awaitOne(f.cqB);
            assertThat(flushed.status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
            assertThat(flushed.wrId()).isEqualTo(8);
        }
    }
}
