package io.reactorrdma.perf;

import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.report.Result;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/** Each transport, run for a fraction of a second. */
@Timeout(60)
class TransportSmokeTest {

    private static PerfOptions options(String... args) {
        String[] all = new String[args.length + 4];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--duration";
        all[args.length + 1] = "0.3";
        all[args.length + 2] = "--warmup";
        all[args.length + 3] = "0.1";
        return PerfOptions.parse(all);
    }

    @Test
    void sendLatOnLoopbackSpinAndBlock() {
        for (String poll : new String[]{"spin", "block"}) {
            Result r = ScenarioRunner.run(options("send-lat", "--size", "100", "--poll", poll), Transport.RDMA_LOOPBACK);
            assertThat(r.ops()).isPositive();
            assertThat(r.sizeBytes()).isEqualTo(100);
            assertThat(r.latency().getTotalCount()).isEqualTo(r.ops());
            assertThat(r.clientCpuUsPerOp()).isPositive();
            assertThat(r.serverCpuUsPerOp()).isPositive();
            assertNoPerOpAllocation(r);
        }
    }

    @Test
    void writeBwOnLoopbackVerifiesThePeersRegion() {
        Result r = ScenarioRunner.run(options("write-bw", "--size", "64k"), Transport.RDMA_LOOPBACK);
        assertThat(r.ops()).isPositive();
        assertThat(r.mibPerSecond()).isPositive();
        assertThat(r.latency()).isNull();
        assertNoPerOpAllocation(r);
    }

    @Test
    void sendLatAndWriteBwOnShmWithAForkedPeer() {
        Result lat = ScenarioRunner.run(options("send-lat", "--poll", "block"), Transport.RDMA_SHM);
        assertThat(lat.ops()).isPositive();
        assertThat(lat.serverCpuUsPerOp()).isPositive();
        Result bw = ScenarioRunner.run(options("write-bw", "--size", "64k"), Transport.RDMA_SHM);
        assertThat(bw.mibPerSecond()).isPositive();
        assertNoPerOpAllocation(bw);
    }

    @Test
    void memcpyFloor() {
        Result r = ScenarioRunner.run(options("write-bw", "--size", "4k"), Transport.MEMCPY);
        assertThat(r.mibPerSecond()).isPositive();
        assertThat(r.serverCpuUsPerOp()).isNaN();
    }

    @Test
    void shmFloorWithAForkedPeer() {
        Result r = ScenarioRunner.run(options("send-lat"), Transport.SHM_FLOOR);
        assertThat(r.ops()).isPositive();
        assertThat(r.latency().getValueAtPercentile(50)).isPositive();
        assertThat(r.serverCpuUsPerOp()).isPositive();
        assertNoPerOpAllocation(r);
    }

    /** Tens of thousands of operations in well under 64 KiB: the hot loop allocates nothing per operation. */
    private static void assertNoPerOpAllocation(Result r) {
        assertThat(r.clientAllocated()).as("bytes allocated by the client thread over %d ops", r.ops()).isLessThan(64 * 1024);
    }
}
