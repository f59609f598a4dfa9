package io.reactorrdma.perf.echo;

import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.Scenario;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.measure.EngineMeters;
import io.reactorrdma.perf.measure.Outcome;
import io.reactorrdma.perf.report.Result;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The echo scenario on each transport, run for a second (long enough for some echoes even on a
 * busy 2-core machine where spinning threads contend with everything else).
 */
@Timeout(120)
class EchoSmokeTest {

    private static PerfOptions options(String... args) {
        String[] all = new String[args.length + 5];
        all[0] = "echo";
        System.arraycopy(args, 0, all, 1, args.length);
        all[args.length + 1] = "--duration";
        all[args.length + 2] = "1";
        all[args.length + 3] = "--warmup";
        all[args.length + 4] = "0.2";
        return PerfOptions.parse(all);
    }

    @Test
    void eagerMessagesOnLoopbackWithTwoConnectionsSpinAndBlock() {
        for (String poll : new String[]{"spin", "block"}) {
            Outcome out = EchoRunner.measureOn(options("--size", "100", "--poll", poll, "--connections", "2"), Transport.RDMA_LOOPBACK);
            Result r = out.result();
            assertResult(r, 100);
            for (EngineMeters m : new EngineMeters[]{out.client(), out.server()}) {
                assertThat(m.isEmpty()).isFalse();
                // The figures are differences of two snapshots that read the counters one after the other while
                // spinning I/O threads keep posting; a reader descheduled between two reads sees them batches apart
                // (seen: 20 of 15,780 on a loaded 2-core machine; doorbells 9 over posts of 30,396 in a fresh-clone
                // build), so allow 1 %. A doorbell posts at least one request, and each batch ends signaled.
                double doorbells = m.get("rdma.doorbells");
                double posts = m.get("rdma.posts");
                assertThat(doorbells).as(poll + ": doorbells").isPositive().isLessThanOrEqualTo(posts + 1 + Math.floor(posts / 100));
                assertThat(m.get("rdma.posts.signaled")).isBetween(doorbells - 1 - Math.floor(doorbells / 100), m.get("rdma.posts"));
                assertThat(m.get("rdma.rendezvous")).as("100-byte messages go eagerly").isZero();
                assertThat(m.get("rdma.copies.on.send")).as("messages are born in registered memory").isZero();
                assertThat(m.get("rdma.rnr")).isZero();
            }
        }
    }

    @Test
    void largeMessagesAndTheirEchoesArePulledOnLoopback() {
        // 128 KiB: over a server's 8 KiB eager size and over a client's 64 KiB one (a 64 KiB reply goes eagerly)
        Outcome out = EchoRunner.measureOn(options("--size", "128k", "--poll", "block"), Transport.RDMA_LOOPBACK);
        assertResult(out.result(), 131072);
        // every measured message was pulled each way: the client's large buffer (its connection's alloc()) lies in
        // memory the server may read, and the echo arrives in the server's readable memory for that client (the meters
        // are read at the phase changes, the echoes counted between them: a message in flight may fall on either side)
        assertThat(out.client().get("rdma.pulled")).isGreaterThanOrEqualTo(out.result().ops() - 2);
        assertThat(out.server().get("rdma.pulled")).isGreaterThanOrEqualTo(out.result().ops() - 2);
        assertThat(out.client().get("rdma.rendezvous") + out.server().get("rdma.rendezvous")).as("WRITE rendezvous round trips").isZero();
        assertThat(out.client().get("rdma.pull.copies") + out.server().get("rdma.pull.copies")).as("copies for pull").isZero();
    }

    @Test
    void ownRepliesOnLoopbackAndOverTcp() {
        // the in-JVM server's close fails the run if its own reply buffer was not released
        Outcome out = EchoRunner.measureOn(options("--size", "128k", "--poll", "block", "--reply", "own"), Transport.RDMA_LOOPBACK);
        assertResult(out.result(), 131072);
        assertThat(out.client().get("rdma.pulled")).as("the replies are pulled as echoes are")
                .isGreaterThanOrEqualTo(out.result().ops() - 2);
        assertResult(EchoRunner.measureOn(options("--size", "4k", "--reply", "own"), Transport.TCP).result(), 4096);
    }

    @Test
    void shmWithAForkedServerReportsItsMeters() {
        Outcome out = EchoRunner.measureOn(options("--size", "64", "--poll", "block"), Transport.RDMA_SHM);
        assertResult(out.result(), 64);
        assertThat(out.server().get("rdma.doorbells")).isPositive();
        assertThat(out.server().get("rdma.bytes.sent")).isGreaterThanOrEqualTo(64.0 * out.result().ops());
    }

    @Test
    void tcpWithAForkedServer() {
        Outcome out = EchoRunner.measureOn(options("--size", "4k", "--connections", "2"), Transport.TCP);
        assertResult(out.result(), 4096);
        assertThat(out.client().isEmpty()).isTrue();
    }

    private static void assertResult(Result r, int size) {
        assertThat(r.scenario()).isEqualTo(Scenario.ECHO);
        assertThat(r.sizeBytes()).isEqualTo(size);
        assertThat(r.ops()).isPositive();
        assertThat(r.latency().getTotalCount()).isEqualTo(r.ops());
        assertThat(r.latency().getValueAtPercentile(50)).isPositive();
        assertThat(r.mibPerSecond()).isPositive();
        assertThat(r.clientCpuUsPerOp()).isPositive();
        assertThat(r.serverCpuUsPerOp()).isPositive();
    }
}
