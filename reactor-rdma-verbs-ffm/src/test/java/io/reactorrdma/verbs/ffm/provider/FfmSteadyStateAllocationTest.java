package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.VerbsFixture;
import io.reactorrdma.verbs.ffm.testing.EmulatedRdmaCore;
import io.reactorrdma.verbs.work.RecvWr;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The data path allocates nothing in steady state: posting receives and batches of sends (inline and not, with
 * immediate data, WRITEs and READs) patches the native chains, and polling decodes into the caller's completions.
 */
class FfmSteadyStateAllocationTest {

    @TempDir
    Path dir;

    @Test
    void postingAndPollingAllocateNothingOnceWarm() throws Exception {
        Path so = EmulatedRdmaCore.build(dir);
        FfmSettings settings = new FfmSettings(Optional.of(so), Optional.of(so), "127.0.0.1", FfmSettings.DEFAULT_MAX_INLINE);
        try (VerbsFixture f = new VerbsFixture(FfmContext.open(settings), FfmContext.open(settings), QpAttributes::create)) {
            RecvWr[] recvs = {new RecvWr().wrId(1), new RecvWr().wrId(2)};
            recvs[0].setSge(f.mrB, 0, 4096);
            recvs[1].setSge(f.mrB, 4096, 4096);
            SendWr[] sends = {
                VerbsFixture.send(10, f.mrA, 0, 32).signaled(false), // inline
                VerbsFixture.rdma(WrOpcode.WRITE, 11, f.mrA, 0, 2048, f.mrB.address() + 65536, f.mrB.rkey()).signaled(false),
                VerbsFixture.rdma(WrOpcode.READ, 12, f.mrA, 8192, 1024, f.mrB.address() + 65536, f.mrB.rkey()).signaled(false),
                VerbsFixture.rdma(WrOpcode.WRITE_WITH_IMM, 13, f.mrA, 0, 512, f.mrB.address() + 131072, f.mrB.rkey()).immData(7),
            };
            WorkCompletion[] wcs = VerbsFixture.newCompletions(8);
            com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long tid = Thread.currentThread().threadId();
            long before = 0;
            int rounds = 20_000;
            for (int r = 0; r < rounds; r++) {
                if (r == rounds / 2) {
                    before = threads.getThreadAllocatedBytes(tid);
                }
                f.qpB.postRecv(recvs, 0, 2);
                f.qpA.postSend(sends, 0, sends.length);
                int sent = 0;
                int received = 0;
                while (sent < 1 || received < 2) {
                    sent += f.cqA.poll(wcs, wcs.length);
                    received += f.cqB.poll(wcs, wcs.length);
                }
            }
            long allocated = threads.getThreadAllocatedBytes(tid) - before;
            assertThat(allocated).as("bytes allocated by %d rounds of posts and polls", rounds / 2).isLessThan(4096);
        }
    }
}
