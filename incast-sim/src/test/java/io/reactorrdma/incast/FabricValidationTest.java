package io.reactorrdma.incast;

import io.reactorrdma.incast.topology.IncastConfig;
import io.reactorrdma.incast.topology.OneBigSwitch;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Validations 1–4 (docs/INCAST.md) on one switch, exact in integer picoseconds. Defaults: 25 Gb/s (320 ps per byte),
 * 1 µs links, 1024 B payload + 82 B headers = 1106 wire bytes (353,920 ps), 86 B ACKs (27,520 ps). Store and forward
 * over two hops, so the base RTT of a packet of w wire bytes is 2·ser(w) + 2·ser(ACK) + 4·delay, and a flow of k
 * full packets completes after k·ser(1106) + (RTT − ser(1106)): the first hop's serialization of the first packet is
 * already part of size/rate.
 */
class FabricValidationTest {

    private static final long SER_PACKET = 1106L * 320;
    private static final long SER_ACK = 86L * 320;
    private static final long DELAY = 1_000_000L;
    private static final long BASE_RTT = 2 * SER_PACKET + 2 * SER_ACK + 4 * DELAY;

    @Test
    void singlePingTakesTheAnalyticBaseRtt() {
        Simulation sim = new Simulation(IncastConfig.defaults(), new OneBigSwitch(2));
        int flow = sim.addFlow(0, 1);
        sim.post(flow, 100, 0);
        sim.run();
        assertThat(sim.completions()).isEqualTo(1);
        assertThat(sim.lastCompletionPs()).isEqualTo(2L * (100 + 82) * 320 + 2 * SER_ACK + 4 * DELAY);
        assertThat(sim.drained()).isTrue();
    }

    @Test
    void oneLongFlowRunsAtLineRateTimesMtuOverWireBytesAndCompletesAfterSizeOverRatePlusRtt() {
        Simulation sim = new Simulation(IncastConfig.defaults(), new OneBigSwitch(2));
        int flow = sim.addFlow(0, 1);
        sim.post(flow, 1 << 20, 0);
        // packet j (from 0) is wholly at the receiver at 2·ser + 2·delay + j·ser
        long first = 2 * SER_PACKET + 2 * DELAY;
        long t1 = first + 100 * SER_PACKET;
        long t2 = first + 900 * SER_PACKET;
        sim.runUntil(t1);
        long delivered1 = sim.deliveredBytes(flow);
        sim.runUntil(t2);
        long delivered2 = sim.deliveredBytes(flow);
        assertThat(delivered1).isEqualTo(101 * 1024);
        // goodput = 25e9 b/s × 1024/1106 exactly: bytes × 8 / (t2 − t1) = 25e9 × 1024 / 1106
        assertThat((delivered2 - delivered1) * 8 * 1106 * 1_000_000_000_000L)
                .isEqualTo((t2 - t1) * 25_000_000_000L * 1024);
        sim.run();
        assertThat(sim.lastCompletionPs()).isEqualTo(1024 * SER_PACKET + BASE_RTT - SER_PACKET);
        assertThat(sim.drained()).isTrue();
    }

    @Test
    void atMtu4096AFlowCompletesAfterSizeOverRatePlusRttAndAnIncastStaysLossless() {
        IncastConfig config = IncastConfig.defaults().withMtuBytes(4096);
        long ser = 4178L * 320;
        Simulation sim = new Simulation(config, new OneBigSwitch(2));
        sim.post(sim.addFlow(0, 1), 1 << 20, 0);
        sim.run();
        assertThat(sim.lastCompletionPs()).isEqualTo(256 * ser + (2 * ser + 2 * SER_ACK + 4 * DELAY) - ser);

        Simulation large = incast(config.withSwitchBufferBytes(1L << 20), 8, 256 * 1024);
        assertThat(large.xoffTotal()).isPositive();
        assertThat(large.completions()).isEqualTo(8);
    }

    @Test
    void nToOneWithoutPfcOrBufferLimitPeaksAtNsTimesOneMinusOneOverNAndEndsAfterNsOverCPlusRtt() {
        int n = 8;
        int packets = 64;
        IncastConfig config = IncastConfig.defaults().withPfc(false).withSwitchBufferBytes(1L << 30);
        Simulation sim = new Simulation(config, new OneBigSwitch(n + 1));
        for (int h = 0; h < n; h++) {
            sim.post(sim.addFlow(h, n), packets * 1024, 0);
        }
        sim.run();
        long s = packets * 1106L;
        int egress = (n + 1) + n;
        assertThat(sim.peakQueueBytes(egress)).isEqualTo(n * s - s); // N·S·(1 − 1/N)
        assertThat(sim.lastCompletionPs()).isEqualTo(n * s * 320 + BASE_RTT - SER_PACKET);
        assertThat(sim.completions()).isEqualTo(n);
        assertThat(sim.xoffTotal()).isZero();
        assertThat(sim.drained()).isTrue();
    }

    @Test
    void withPfcABurstUnderTheThresholdPausesNothingAndOneOverItPausesTheNicsWithinHeadroom() {
        int n = 8;
        IncastConfig config = IncastConfig.defaults().withSwitchBufferBytes(1L << 20);
        // T = (B − Σ(reserve + headroom) − shared)/8 over 9 ports; with n ingress ports each holding s shared bytes,
        // a port reaches T at s* = (B − 9·(4096 + 9375)) / (8 + n) = 57,958 B. Each ingress holds about S·(1 − 1/n).
        long free = (1L << 20) - 9L * (4096 + 9375);
        long sStar = free / (8 + n);
        assertThat(sStar).isEqualTo(57_958);

        Simulation small = incast(config, n, 32 * 1024); // about 31 KB per ingress less 4 KB reserve: under s*
        assertThat(small.xoffTotal()).isZero();
        assertThat(small.maxIngressBytes(0)).isLessThan(4096 + sStar);

        Simulation large = incast(config, n, 256 * 1024); // about 242 KB per ingress: over s*
        long threshold0 = free >> 3;
        assertThat(large.xoffTotal()).isPositive();
        assertThat(large.maxIngressBytes(0)).isLessThanOrEqualTo(4096 + threshold0 + config.headroomBytes());
        for (int h = 0; h < n; h++) {
            assertThat(large.everPaused(h)).as("NIC %d paused", h).isTrue();
            assertThat(large.pausedPs(h)).isPositive();
            assertThat(large.deliveredBytes(h)).isEqualTo(256 * 1024);
        }
        assertThat(large.completions()).isEqualTo(n);
        // lossless and the bottleneck stays busy: nothing finishes before N·S/C
        assertThat(large.lastCompletionPs()).isGreaterThanOrEqualTo(n * 256L * 1106 * 320);
    }

    @Test
    void withoutPfcAnOverflowIsAModelErrorNamingThePort() {
        IncastConfig config = IncastConfig.defaults().withPfc(false).withSwitchBufferBytes(256 * 1024);
        assertThatThrownBy(() -> incast(config, 8, 256 * 1024)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("switch 0 ingress port").hasMessageContaining("buffer overflow");
    }

    private static Simulation incast(IncastConfig config, int n, int bytes) {
        Simulation sim = new Simulation(config, new OneBigSwitch(n + 1));
        for (int h = 0; h < n; h++) {
            sim.post(sim.addFlow(h, n), bytes, 0);
        }
        sim.run();
        assertThat(sim.drained()).as("all buffer counters at zero, nothing queued, all acknowledged").isTrue();
        return sim;
    }
}
