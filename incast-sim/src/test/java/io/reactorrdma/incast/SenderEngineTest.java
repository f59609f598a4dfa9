package io.reactorrdma.incast;

import io.reactorrdma.incast.topology.IncastConfig;
import io.reactorrdma.incast.topology.OneBigSwitch;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The sender's engine on an idle two-host fabric, exact in picoseconds: fragments of the engine's size, the chain
 * bound, and the project's {@code ByteWindow} holding fragments back until earlier ones are acknowledged. On an idle
 * path a fragment of k full packets posted at p completes at p + k·ser + RTT − ser (FabricValidationTest's formula).
 */
class SenderEngineTest {

    private static final long SER_PACKET = 1106L * 320;
    private static final long SER_ACK = 86L * 320;
    private static final long DELAY = 1_000_000L;
    private static final long BASE_RTT = 2 * SER_PACKET + 2 * SER_ACK + 4 * DELAY;
    private static final int FRAGMENT = EngineDefaults.FRAGMENT_SIZE;
    /** A whole fragment alone on an idle path: 64 packets. */
    private static final long FRAGMENT_ALONE = (FRAGMENT / 1024) * SER_PACKET + BASE_RTT - SER_PACKET;

    @Test
    void theDefaultsAreTheEnginesOwnConstants() {
        SenderConfig d = SenderConfig.defaults();
        assertThat(d.fragmentBytes()).isEqualTo(EngineDefaults.FRAGMENT_SIZE).isEqualTo(64 * 1024);
        assertThat(d.chainDepth()).isEqualTo(EngineDefaults.SEND_QUEUE_DEPTH).isEqualTo(32);
        assertThat(d.windowEnabled()).isFalse();
        // the engine's default window never binds: the chain cannot hold more than depth × fragment
        assertThat(EngineDefaults.SEND_WINDOW_BYTES).isGreaterThanOrEqualTo((long) d.chainDepth() * d.fragmentBytes());
    }

    @Test
    void withoutAWindowAMessageOfManyFragmentsGoesAtOnceAndRunsAtLineRate() {
        Simulation sim = single(SenderConfig.defaults(), 1 << 20);
        assertThat(sim.lastCompletionPs()).isEqualTo(1024 * SER_PACKET + BASE_RTT - SER_PACKET);
        assertThat(sim.peakEngineBytes()).isEqualTo(1 << 20); // 16 fragments posted at once
        assertThat(sim.engineWaitPs().getMaxValue()).isZero();
        assertThat(sim.windowStalls()).isZero();
    }

    @Test
    void aWindowOfOneFragmentHoldsEachFragmentUntilThePreviousOneIsAcknowledgedAndTheWaitCountsInTheLatency() {
        for (long w : new long[] {FRAGMENT, FRAGMENT + FRAGMENT / 2}) { // room for one fragment, not two
            Simulation sim = single(SenderConfig.defaults().withWindowBytes(w), 4 * FRAGMENT);
            assertThat(sim.completions()).isEqualTo(1);
            assertThat(sim.lastCompletionPs()).as("W %d", w).isEqualTo(4 * FRAGMENT_ALONE);
            // the last fragment was posted when the third completed (the histogram keeps 3 significant digits)
            Histogram wait = sim.engineWaitPs();
            assertThat(wait.valuesAreEquivalent(wait.getMaxValue(), 3 * FRAGMENT_ALONE)).as("max wait %d", wait.getMaxValue())
                    .isTrue();
            assertThat(sim.peakEngineBytes()).isEqualTo(FRAGMENT);
            assertThat(sim.windowStalls()).isEqualTo(3);
        }
    }

    @Test
    void aWindowSmallerThanAFragmentLetsOneFragmentGoAloneTheOversizeCase() {
        int rest = 36 * 1024;
        Simulation sim = single(SenderConfig.defaults().withWindowBytes(1), FRAGMENT + rest);
        long restAlone = (rest / 1024) * SER_PACKET + BASE_RTT - SER_PACKET;
        assertThat(sim.lastCompletionPs()).isEqualTo(FRAGMENT_ALONE + restAlone);
        assertThat(sim.peakEngineBytes()).isEqualTo(FRAGMENT); // above W, but alone
    }

    @Test
    void theChainDepthBoundsWorkRequestsPostedAndNotCompleted() {
        SenderConfig four = new SenderConfig(SenderConfig.WINDOW_OFF, 4, FRAGMENT);
        Simulation sim = single(four, 1 << 20);
        assertThat(sim.peakEngineBytes()).isEqualTo(4L * FRAGMENT);
        assertThat(sim.engines().chainStalls()).isPositive();
        // four fragments in flight cover the RTT: the message still finishes at line rate
        assertThat(sim.lastCompletionPs()).isEqualTo(1024 * SER_PACKET + BASE_RTT - SER_PACKET);
    }

    @Test
    void theEnginesDefaultWindowGivesTheSameRunAsNoWindow() {
        assertThat(poissonDigest(SenderConfig.defaults().withWindowBytes(EngineDefaults.SEND_WINDOW_BYTES)))
                .isEqualTo(poissonDigest(SenderConfig.defaults()));
        assertThat(poissonDigest(SenderConfig.defaults().withWindowBytes(8 * 1024)))
                .as("a small window changes the run").isNotEqualTo(poissonDigest(SenderConfig.defaults()));
    }

    @Test
    void valuesTheEngineRefusesAreRefusedWithTheEnginesReason() {
        assertThatThrownBy(() -> new SenderConfig(0, 2, FRAGMENT)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("engine refuses").hasMessageContaining("sendQueueDepth must be at least 4");
        assertThatThrownBy(() -> new SenderConfig(0, 32, 1000)).hasMessageContaining("fragmentSize must be at least");
        assertThatThrownBy(() -> SenderConfig.defaults().withWindowBytes(-1))
                .hasMessageContaining("windowBytes -1").hasMessageContaining("at least 1 byte");
    }

    private static Simulation single(SenderConfig sender, int bytes) {
        Simulation sim = new Simulation(IncastConfig.defaults(), new OneBigSwitch(2), sender);
        sim.post(sim.addFlow(0, 1), bytes, 0);
        sim.run();
        assertThat(sim.completions()).isEqualTo(1);
        assertThat(sim.drained()).isTrue();
        return sim;
    }

    /** Two flows per sender, 96 KiB messages (two fragments each), Poisson at 90 % load, a PFC-pausing buffer. */
    private static String poissonDigest(SenderConfig sender) {
        int senders = 8;
        Simulation sim = new Simulation(IncastConfig.defaults().withSwitchBufferBytes(512 * 1024),
                new OneBigSwitch(senders + 1), sender);
        int[] flows = new int[2 * senders];
        for (int i = 0; i < flows.length; i++) {
            flows[i] = sim.addFlow(i / 2, senders);
        }
        int bytes = 96 * 1024;
        double interval = flows.length * 96.0 * 1106 * 320 / 0.9;
        sim.workload(new PoissonWorkload(flows, bytes, interval, 400, 7));
        long events = sim.run();
        assertThat(sim.drained()).isTrue();
        assertThat(sim.completions()).isEqualTo(400);
        return events + " " + sim.digest() + " " + sim.xoffTotal();
    }
}
