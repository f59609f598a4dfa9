package io.reactorrdma.perf.rsocket;

import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.Scenario;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.measure.Outcome;
import io.reactorrdma.perf.measure.EngineMeters;
import io.reactorrdma.perf.report.Result;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * rsocket-rr and rsocket-stream over rdma-loopback and local, run for a second each (both ends in
 * this JVM; block mode, so that a busy 2-core machine still moves some payloads). Each run also
 * checks that the RDMA ends released every registered buffer (their close throws otherwise).
 */
@Timeout(180)
class RSocketSmokeTest {

    private static PerfOptions options(String scenario, String... args) {
        String[] all = new String[args.length + 5];
        all[0] = scenario;
        System.arraycopy(args, 0, all, 1, args.length);
        all[args.length + 1] = "--duration";
        all[args.length + 2] = "1";
        all[args.length + 3] = "--warmup";
        all[args.length + 4] = "0.2";
        return PerfOptions.parse(all);
    }

    @Test
    void requestResponseOnLoopbackWithTwoConnections() {
        Outcome out = RSocketRunner.measureOn(options("rsocket-rr", "--size", "100", "--poll", "block", "--connections", "2"),
                Transport.RDMA_LOOPBACK);
        assertLatencies(out.result(), Scenario.RSOCKET_RR, 100);
        assertThat(out.result().serverCpuUsPerOp()).isPositive();
        for (EngineMeters m : new EngineMeters[]{out.client(), out.server()}) {
            // a request-response is one frame each way (the server's meters are read a little later than the client's)
            assertThat(m.get("rdma.bytes.sent")).isGreaterThanOrEqualTo(100.0 * (out.result().ops() - 2));
            assertThat(m.get("rdma.rendezvous")).as("100-byte frames go eagerly").isZero();
            assertThat(m.get("rdma.rnr")).isZero();
        }
    }

    @Test
    void requestResponseOnLocal() {
        Outcome out = RSocketRunner.measureOn(options("rsocket-rr", "--size", "4k"), Transport.LOCAL);
        assertLatencies(out.result(), Scenario.RSOCKET_RR, 4096);
        assertThat(out.client().isEmpty()).isTrue();
        assertThat(out.result().serverCpuUsPerOp()).as("local's server shares the client's process").isNaN();
    }

    @Test
    void streamOnLoopback() {
        Outcome out = RSocketRunner.measureOn(options("rsocket-stream", "--size", "64k", "--poll", "block"), Transport.RDMA_LOOPBACK);
        assertStream(out.result(), 65536);
        // every measured payload is a 64 KiB frame from the server: one rendezvous each
        assertThat(out.server().get("rdma.bytes.sent")).isGreaterThanOrEqualTo(65536.0 * out.result().ops());
    }

    @Test
    void streamOnLocalWithTwoConnections() {
        Outcome out = RSocketRunner.measureOn(options("rsocket-stream", "--size", "1000", "--connections", "2"), Transport.LOCAL);
        assertStream(out.result(), 1000);
    }

    private static void assertLatencies(Result r, Scenario s, int size) {
        assertThat(r.scenario()).isEqualTo(s);
        assertThat(r.sizeBytes()).isEqualTo(size);
        assertThat(r.ops()).isPositive();
        assertThat(r.latency().getTotalCount()).isEqualTo(r.ops());
        assertThat(r.latency().getValueAtPercentile(50)).isPositive();
        assertThat(r.mibPerSecond()).isPositive();
        assertThat(r.clientCpuUsPerOp()).isPositive();
    }

    private static void assertStream(Result r, int size) {
        assertThat(r.scenario()).isEqualTo(Scenario.RSOCKET_STREAM);
        assertThat(r.sizeBytes()).isEqualTo(size);
        assertThat(r.ops()).isPositive();
        assertThat(r.latency()).as("a stream has no round trips").isNull();
        assertThat(r.mibPerSecond()).isPositive();
        assertThat(r.clientCpuUsPerOp()).isPositive();
    }
}
