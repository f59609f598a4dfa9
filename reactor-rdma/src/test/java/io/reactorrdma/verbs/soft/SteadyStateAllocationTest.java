package io.reactorrdma.verbs.soft;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.work.RecvWr;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.VerbsFixture;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.nio.file.Paths;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Posting and polling allocate nothing in steady state: SEND, WRITE_WITH_IMM and READ batches,
 * receive reposts and polls on both sides, measured with the JVM's per-thread allocation counter.
 */
class SteadyStateAllocationTest {

    static final Path DIR = Paths.get("/dev/shm", "reactor-rdma-alloc-" + ProcessHandle.current().pid());

    @AfterAll
    static void cleanup() throws IOException {
        ShmTestSupport.deleteTree(DIR);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"loopback", "shm"})
    void postingAndPollingAllocateNothing(String fabric) {
        SoftConfig config = SoftConfig.defaults().withShmDirectory(DIR);
        VerbsContext a = fabric.equals("shm") ? SoftContext.openShm(config) : SoftContext.openLoopback(config);
        VerbsContext b = fabric.equals("shm") ? SoftContext.openShm(config) : SoftContext.openLoopback(config);
        try (VerbsFixture f = new VerbsFixture(a, b, cq -> QpAttributes.create(cq).withMaxSendWr(16).withMaxRecvWr(16))) {
            SendWr[] batch = {new SendWr(), new SendWr(), new SendWr()};
            batch[0].opcode(WrOpcode.SEND).signaled(false).setSge(f.mrA, 0, 64);
            batch[1].opcode(WrOpcode.WRITE_WITH_IMM).signaled(false).remote(f.mrB.address() + 8192, f.mrB.rkey()).setSge(f.mrA, 64, 4096);
            batch[2].opcode(WrOpcode.READ).signaled(true).remote(f.mrB.address() + 65536, f.mrB.rkey()).setSge(f.mrA, 8192, 1024);
            RecvWr[] recvs = {new RecvWr(), new RecvWr()};
            recvs[0].setSge(f.mrB, 0, 64);
            recvs[1].setSge(f.mrB, 64, 64);
            WorkCompletion[] wcs = VerbsFixture.newCompletions(8);
            com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long tid = Thread.currentThread().getId();
            long before = 0;
            int rounds = 40_000;
            for (int i = 0; i < rounds * 2; i++) {
                if (i == rounds) {
                    before = threads.getThreadAllocatedBytes(tid);
                }
                f.qpB.postRecv(recvs, 0, 2);
                f.qpA.postSend(batch, 0, 3);
                int got = 0;
                while (got < 2) {
                    got += f.cqB.poll(wcs, 8);
                }
                got = 0;
                while (got < 1) {
                    got += f.cqA.poll(wcs, 8);
                }
            }
            long allocated = threads.getThreadAllocatedBytes(tid) - before;
            assertThat(allocated).as("bytes allocated by %d rounds of post + poll", rounds).isLessThan(16 * 1024);
        }
    }
}
