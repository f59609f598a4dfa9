package io.reactorrdma.verbs.soft;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.VerbsFixture;
import io.reactorrdma.verbs.work.WcStatus;
import io.reactorrdma.verbs.work.WorkCompletion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The racing points of a receive slot that the peer only reads: the owner's flush against a peer's
 * run, a slot posted anew while its inline message is still being scattered, and a region closed
 * during that scatter. Each interleaving is forced with the queue pair's test hooks; each test
 * failed before the fix it names.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReceiveSlotRaceTest {

    @TempDir
    Path dir;

    @AfterEach
    void clearHooks() {
        SoftQueuePair.afterErrorState = null;
        SoftQueuePair.beforeFlushStore = null;
        SoftQueuePair.duringInlineScatter = null;
    }

    /**
     * B enters ERROR; a poller that already reads ERROR decides to flush B's receive, and exactly
     * then A's SEND runs from start to end. A must find B in ERROR (B publishes its shared state
     * before the field its pollers read) and fail, instead of filling a receive B flushes — the
     * other order told A "delivered" for a message B reported flushed, written into a buffer B had
     * handed back.
     */
    @Test
    void aPeerRunStartingWhileTheOwnerFlushesFindsItInError() {
        SoftContext a = SoftContext.openLoopback(SoftConfig.defaults());
        SoftContext b = SoftContext.openLoopback(SoftConfig.defaults());
        try (VerbsFixture f = VerbsFixture.connected(a, b)) {
            f.postRecv(f.qpB, f.mrB, 7, 0, 256);
            for (int i = 0; i < 256; i++) {
                f.mrB.buffer().put(i, (byte) 0x5A);
            }
            VerbsFixture.fill(f.mrA, 0, 200, 5);
            AtomicReference<WorkCompletion> flushed = new AtomicReference<>();
            SoftQueuePair.beforeFlushStore = () -> CompletableFuture.runAsync(() -> VerbsFixture.post(f.qpA,
                    VerbsFixture.send(1, f.mrA, 0, 200))).join();
            SoftQueuePair.afterErrorState = () -> {
                SoftQueuePair.afterErrorState = null;
                WorkCompletion[] wcs = VerbsFixture.newCompletions(1);
                if (f.cqB.poll(wcs, 1) == 1) { // a poller that reads ERROR now
                    flushed.set(VerbsFixture.copy(wcs[0]));
                }
            };
            ((SoftQueuePair) f.qpB).enterError("the test fails B");

            assertThat(flushed.get()).as("B's poll inside the window flushed receive 7").isNotNull();
            assertThat(flushed.get().status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
            assertThat(flushed.get().wrId()).isEqualTo(7);
            WorkCompletion sent = f.awaitOne(f.cqA);
            assertThat(sent.status()).as("A's SEND into a flushed receive").isNotEqualTo(WcStatus.SUCCESS);
            for (int i = 0; i < 256; i++) {
                assertThat(f.mrB.buffer().get(i)).as("byte %d of the flushed receive's buffer", i).isEqualTo((byte) 0x5A);
            }
        } finally {
            a.close();
            b.close();
        }
    }

    /**
     * The owner's only receive slot holds an inline message; while the poller scatters it, another
     * thread posts a receive. The slot is free only once the completion is taken, so that post is
     * refused (queue full) and the message and its completion stay receive 7's — before, the post
     * took the slot and the completion came back as receive 8's.
     */
    @Test
    void aSlotIsPostedAnewOnlyAfterItsInlineMessageWasTaken() {
        SoftContext a = SoftContext.openLoopback(SoftConfig.defaults());
        SoftContext b = SoftContext.openLoopback(SoftConfig.defaults());
        try (VerbsFixture f = new VerbsFixture(a, b, cq -> QpAttributes.create(cq).withMaxRecvWr(1))) {
            f.postRecv(f.qpB, f.mrB, 7, 0, 64);
            VerbsFixture.fill(f.mrA, 0, 40, 5);
            VerbsFixture.post(f.qpA, VerbsFixture.send(1, f.mrA, 0, 40));
            assertThat(f.awaitOne(f.cqA).isSuccess()).isTrue();
            AtomicReference<Throwable> refused = new AtomicReference<>();
            SoftQueuePair.duringInlineScatter = () -> {
                SoftQueuePair.duringInlineScatter = null;
                try {
                    CompletableFuture.runAsync(() -> f.postRecv(f.qpB, f.mrB, 8, 1024, 64)).join();
                } catch (CompletionException e) {
                    refused.set(e.getCause());
                }
            };

            WorkCompletion wc = f.awaitOne(f.cqB);
            assertThat(wc.isSuccess()).isTrue();
            assertThat(wc.wrId()).as("the completion of receive 7").isEqualTo(7);
            VerbsFixture.assertFilled(f.mrB, 0, 40, 5);
            assertThat(refused.get()).as("the post while the slot was still taken").isNotNull()
                    .hasMessageContaining("receive queue");
        } finally {
            a.close();
            b.close();
        }
    }

    /**
     * shm unmaps a closed region's memory once no copy into local regions is under way. A poller
     * scattering an inline message counts as one: a region closed on another thread between the
     * poller's lookup and its copy stays mapped until the copy is done — before, the JVM died of a
     * SIGSEGV in the copy.
     */
    @Test
    void aRegionClosedDuringAnInlineScatterIsNotUnmappedUnderIt() {
        SoftConfig config = SoftConfig.defaults().withShmDirectory(dir);
        SoftContext a = SoftContext.openShm(config);
        SoftContext b = SoftContext.openShm(config);
        try (VerbsFixture f = VerbsFixture.connected(a, b)) {
            MemoryRegion closing = f.pdB.allocate(1 << 20, AccessFlags.LOCAL_WRITE);
            f.postRecv(f.qpB, closing, 6, 0, 64);
            VerbsFixture.post(f.qpA, VerbsFixture.send(1, f.mrA, 0, 64));
            assertThat(f.awaitOne(f.cqA).isSuccess()).isTrue();
            SoftQueuePair.duringInlineScatter = () -> {
                SoftQueuePair.duringInlineScatter = null;
                CompletableFuture.runAsync(closing::close).join();
            };

            WorkCompletion wc = f.awaitOne(f.cqB);
            assertThat(wc.wrId()).isEqualTo(6);
            assertThat(closing.isValid()).isFalse();
        } finally {
            a.close();
            b.close();
        }
    }
}
