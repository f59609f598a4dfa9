package io.reactorrdma.perf.jmh;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The frame-overhead benchmark without JMH: every path sets up, answers round trips with the
 * request's size, counts its threads' allocation, and tears down with no registered buffer left.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FrameOverheadBenchmarkTest {

    private static final int ROUND_TRIPS = 200;

    @Test
    void everyPathAnswersRoundTripsAndLeavesNoBufferBehind() {
        for (String path : new String[]{"rsocket-rdma", "rsocket-local", "engine"}) {
            FrameOverheadBenchmark b = new FrameOverheadBenchmark();
            b.path = path;
            b.size = 64;
            b.idle = "BACK_OFF";
            b.setUp();
            try {
                b.startCounting();
                for (int i = 0; i < ROUND_TRIPS; i++) {
                    assertThat(b.roundTrip()).as(path).isEqualTo(64);
                }
                b.reportPathAllocations();
            } finally {
                b.tearDown(); // throws when a registered buffer is still live
            }
        }
    }

    @Test
    void pathThreadsIncludeTheCallerAndTheNamedThreads() throws InterruptedException {
        Thread named = new Thread(() -> {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "frame-client-io-test");
        named.setDaemon(true);
        named.start();
        try {
            long[] ids = PathAllocations.threadIds(Thread.currentThread(), "frame-client-io-");
            assertThat(ids).contains(Thread.currentThread().getId(), named.getId());
            long before = PathAllocations.allocated(ids);
            byte[][] garbage = new byte[64][];
            for (int i = 0; i < garbage.length; i++) {
                garbage[i] = new byte[1024];
            }
            assertThat(garbage[63]).hasSize(1024);
            assertThat(PathAllocations.allocated(ids) - before).isGreaterThanOrEqualTo(64 * 1024);
        } finally {
            named.interrupt();
            named.join(10_000);
        }
    }

    @Test
    void anUnknownPathIsRefusedWithTheNamesItTakes() {
        FrameOverheadBenchmark b = new FrameOverheadBenchmark();
        b.path = "tcp";
        b.size = 64;
        b.idle = "BACK_OFF";
        assertThatThrownBy(b::setUp).hasMessageContaining("rsocket-rdma, rsocket-local or engine");
    }
}
