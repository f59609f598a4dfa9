package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.CmListener;
import io.reactorrdma.verbs.CompletionQueue;
import io.reactorrdma.verbs.ConnectionRequest;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.VerbsFixture;
import io.reactorrdma.verbs.ffm.testing.EmulatedRdmaCore;
import io.reactorrdma.verbs.work.RecvWr;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A queue pair destroyed with requests outstanding leaves their flushes in its completion queue where the driver does
 * not remove them (rxe, siw; the emulation neither): the room they take comes back only once a poll finds the queue
 * empty, or a new queue pair's completions could overrun it.
 */
class FfmCompletionRoomTest {

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void theRoomOfWhatADestroyedQueuePairHadOutstandingComesBackOnceAPollFindsTheQueueEmpty() throws Exception {
        Path so = EmulatedRdmaCore.build(dir);
        FfmSettings settings = new FfmSettings(Optional.of(so), Optional.of(so), "127.0.0.1", FfmSettings.DEFAULT_MAX_INLINE);
        try (FfmContext a = FfmContext.open(settings); FfmContext b = FfmContext.open(settings);
             CmListener listener = b.listen(new InetSocketAddress("127.0.0.1", 0), 1)) {
            ProtectionDomain pd = a.allocPd();
            MemoryRegion mr = pd.allocate(4096, AccessFlags.LOCAL_WRITE);
            CompletionQueue cq = a.createCq(4);
            QpAttributes four = QpAttributes.create(cq).withMaxSendWr(4).withMaxRecvWr(4);
            QueuePair qp = a.createQp(pd, four);
            for (int i = 0; i < 4; i++) {
                RecvWr wr = new RecvWr().wrId(i);
                wr.setSge(mr, i * 64, 64);
                qp.postRecv(new RecvWr[]{wr}, 0, 1);
            }
            CompletableFuture<CmConnection> client = CompletableFuture.supplyAsync(
                    () -> a.connect(listener.localAddress(), qp, null, VerbsFixture.TIMEOUT));
            ConnectionRequest request = listener.poll(VerbsFixture.TIMEOUT);
            assertThat(request).isNotNull();
            request.accept(b.createQp(b.allocPd(), QpAttributes.create(b.createCq(64))), null);
            client.get(30, TimeUnit.SECONDS);

            qp.close(); // disconnects (its 4 receives are flushed into cq) and destroys it
            ((FfmQueuePair) qp).teardown().get(30, TimeUnit.SECONDS);
            assertThatThrownBy(() -> a.createQp(pd, four)).as("4 flushes + 4 sends + 4 receives would overrun its 8 entries")
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("4 receive completions of destroyed queue pairs may still be in it")
                    .hasMessageContaining("poll it first");
            assertThat(cq.poll(VerbsFixture.newCompletions(8), 8)).as("a destroyed queue pair's flushes are dropped").isZero();
            a.createQp(pd, four).close();
        }
    }

    @Test
    @Timeout(120)
    void aQueuePairThatNeverReachedTheDeviceGivesItsRoomBackAtOnce() throws Exception {
        Path so = EmulatedRdmaCore.build(dir);
        FfmSettings settings = new FfmSettings(Optional.of(so), Optional.of(so), "127.0.0.1", FfmSettings.DEFAULT_MAX_INLINE);
        try (FfmContext a = FfmContext.open(settings)) {
            ProtectionDomain pd = a.allocPd();
            MemoryRegion mr = pd.allocate(4096, AccessFlags.LOCAL_WRITE);
            CompletionQueue cq = a.createCq(4);
            QpAttributes four = QpAttributes.create(cq).withMaxSendWr(4).withMaxRecvWr(4);
            QueuePair qp = a.createQp(pd, four);
            RecvWr wr = new RecvWr().wrId(1);
            wr.setSge(mr, 0, 64);
            qp.postRecv(new RecvWr[]{wr}, 0, 1); // written into the chain only: there is no native queue pair yet
            qp.close();
            a.createQp(pd, four).close();
        }
    }
}
