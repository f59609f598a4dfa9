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

    @Test
    void receivesAreFlushedOnlyAfterAPeerWriteUnderWayHasLanded() throws Exception {
        PeerFreeze freeze = new PeerFreeze();
        SoftContext a = SoftContext.openLoopback(SoftConfig.defaults(), SoftFaults.none().withPeerFreeze(freeze));
        SoftContext b = SoftContext.openLoopback(SoftConfig.defaults());
        try (VerbsFixture f = VerbsFixture.connected(a, b)) {
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
        } finally {
            freeze.thaw();
            a.close();
            b.close();
        }
    }
}
