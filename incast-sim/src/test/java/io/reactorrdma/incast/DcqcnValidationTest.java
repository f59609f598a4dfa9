package io.reactorrdma.incast;

import io.reactorrdma.incast.dcqcn.DcqcnConfig;
import io.reactorrdma.incast.topology.IncastConfig;
import io.reactorrdma.incast.topology.OneBigSwitch;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Validation 6 (docs/INCAST.md) (two DCQCN flows on one bottleneck converge to about C/2 each) and DCQCN's effect on the
 * other guarantees: a flow alone is never marked and keeps line rate, DCQCN without marks is exactly the model
 * without it, one seed gives one output, the steady state allocates nothing, and the fabric drains (CNPs included).
 */
class DcqcnValidationTest {

    private static final long SER_PACKET = 1106L * 320;
    private static final long SER_ACK = 86L * 320;
    private static final long DELAY = 1_000_000L;
    private static final long BASE_RTT = 2 * SER_PACKET + 2 * SER_ACK + 4 * DELAY;
    private static final long MS = 1_000_000_000L;
    /** Line rate × 1024/1106: the most payload a 25 Gb/s link carries. */
    private static final double GOODPUT = 25e9 * 1024 / 1106;

    /**
     * Validation 6. Flow a runs alone from 0 (exactly at line rate, unmarked); flow b joins at 2 ms at line rate.
     * Over the window [10 ms, 40 ms] each flow's goodput is averaged. DCQCN's sawtooth (RAI = C/20) and α's memory of
     * about 10 ms make one window of one seed noisy, so four seeds run: in each, each flow is within 15 % of C/2 and
     * the two fill at least 95 % of the link; over the four, each flow's mean is within 5 % of C/2.
     */
    @Test
    void twoLongFlowsOnOneBottleneckConvergeToHalfTheLinkEach() {
        double sumA = 0;
        double sumB = 0;
        for (long seed = 1; seed <= 4; seed++) {
            double[] shares = twoFlows(seed);
            assertThat(shares[0]).as("seed %d: flow a / (C/2)", seed).isCloseTo(1.0, within(0.15));
            assertThat(shares[1]).as("seed %d: flow b / (C/2)", seed).isCloseTo(1.0, within(0.15));
            assertThat((shares[0] + shares[1]) / 2).as("seed %d: bottleneck use", seed).isGreaterThan(0.95);
            sumA += shares[0];
            sumB += shares[1];
        }
        assertThat(sumA / 4).as("flow a / (C/2), mean of four seeds").isCloseTo(1.0, within(0.05));
        assertThat(sumB / 4).as("flow b / (C/2), mean of four seeds").isCloseTo(1.0, within(0.05));
    }

    /** Flows a (from 0) and b (from 2 ms) into one receiver; each one's goodput over [10, 40] ms / (C/2). */
    private static double[] twoFlows(long seed) {
        Simulation sim = new Simulation(IncastConfig.defaults(), new OneBigSwitch(3)).congestionControl(
                DcqcnConfig.defaults(), seed);
        int a = sim.addFlow(0, 2);
        int b = sim.addFlow(1, 2);
        int bytes = 64 << 20;
        sim.post(a, bytes, 0);
        sim.post(b, bytes, 2 * MS);
        int bottleneck = 3 + 2;
        long alone = 2 * MS - 1;
        sim.runUntil(alone);
        // alone, a is exact: packet j is wholly at the receiver at 2·ser + 2·delay + j·ser, and nothing is marked
        long first = 2 * SER_PACKET + 2 * DELAY;
        assertThat(sim.deliveredBytes(a)).isEqualTo(((alone - first) / SER_PACKET + 1) * 1024);
        assertThat(sim.ecnMarks()).isZero();
        long from = 10 * MS;
        long to = 40 * MS;
        sim.runUntil(from);
        long a0 = sim.deliveredBytes(a);
        long b0 = sim.deliveredBytes(b);
        sim.runUntil(to);
        long deliveredA = sim.deliveredBytes(a) - a0;
        long deliveredB = sim.deliveredBytes(b) - b0;
        // exact: the bottleneck delivers at most one full packet per packet time
        assertThat(deliveredA + deliveredB).isLessThanOrEqualTo(((to - from) / SER_PACKET + 1) * 1024);
        sim.run();
        assertThat(sim.ecnMarks()).isEqualTo(sim.ecnMarks(bottleneck)).isPositive(); // only the bottleneck marks
        assertThat(sim.cnps()).isPositive().isEqualTo(sim.rateCuts());
        assertThat(sim.xoffTotal()).as("DCQCN holds the queue far under the PFC threshold").isZero();
        assertThat(sim.peakQueueBytes(bottleneck)).isLessThan(2 * DcqcnConfig.DEFAULT_KMAX_BYTES);
        assertThat(sim.completions()).isEqualTo(2);
        assertThat(sim.drained()).isTrue();
        double half = GOODPUT / 2;
        return new double[] {deliveredA * 8e12 / (to - from) / half, deliveredB * 8e12 / (to - from) / half};
    }

    @Test
    void aFlowAloneIsNeverMarkedAndKeepsLineRate() {
        Simulation sim = new Simulation(IncastConfig.defaults(), new OneBigSwitch(2)).congestionControl(
                DcqcnConfig.defaults(), 1);
        int flow = sim.addFlow(0, 1);
        sim.post(flow, 1 << 20, 0);
        sim.run();
        // the same exact completion as without DCQCN: 1024 packets back to back at 25 Gb/s
        assertThat(sim.lastCompletionPs()).isEqualTo(1024 * SER_PACKET + BASE_RTT - SER_PACKET);
        assertThat(sim.ecnMarks()).isZero();
        assertThat(sim.cnps()).isZero();
        assertThat(sim.rateBitsPerSecond(flow)).isEqualTo(25e9);
        assertThat(sim.drained()).isTrue();
    }

    @Test
    void withDcqcnOnButNoQueueOverKminTheModelIsExactlyTheOneWithout() {
        // PFC pauses the NICs and two QPs share each NIC, but Kmin is above any queue: no mark, so no rate change
        DcqcnConfig never = DcqcnConfig.defaults().withMarking(1L << 30, (1L << 30) + 1, 1);
        String off = pfcRun(null, 42);
        String unmarked = pfcRun(never, 42);
        assertThat(unmarked).isEqualTo(off);
        assertThat(pfcRun(DcqcnConfig.off(), 42)).isEqualTo(off);
    }

    /**
     * Two NICs with 8 QPs each into one receiver, 4 MiB per QP: cuts take QPs down to the minimum rate, so NICs wait
     * for their rate limiters. They wake at most once per packet sent (no busy loop, no event per QP or per timer
     * tick), and DCQCN adds less than one event per data packet over the same run without it, CNPs included.
     */
    @Test
    void pacedNicsWakeOnceWhenTheEarliestQpIsEligibleNotPerQpOrTick() {
        Simulation off = sixteenQps(null);
        Simulation on = sixteenQps(DcqcnConfig.defaults());
        long packets = 16L * 4096;
        assertThat(on.cnps()).isPositive();
        assertThat(on.rateWakes()).isPositive().isLessThan(packets);
        assertThat(off.rateWakes()).isZero();
        assertThat((double) (on.events() - off.events()) / packets).as("events DCQCN adds per data packet")
                .isLessThan(1.0);
    }

    private static Simulation sixteenQps(DcqcnConfig dcqcn) {
        Simulation sim = new Simulation(IncastConfig.defaults(), new OneBigSwitch(3));
        if (dcqcn != null) {
            sim.congestionControl(dcqcn, 5);
        }
        double slowest = Double.MAX_VALUE;
        for (int i = 0; i < 16; i++) {
            sim.post(sim.addFlow(i / 8, 2), 4 << 20, 0);
        }
        for (int t = 1; t <= 20; t++) {
            sim.runUntil(t * MS / 4);
            for (int f = 0; f < 16; f++) {
                slowest = Math.min(slowest, sim.rateBitsPerSecond(f));
            }
        }
        sim.run();
        assertThat(sim.drained()).isTrue();
        assertThat(sim.completions()).isEqualTo(16);
        if (dcqcn != null) {
            assertThat(slowest).as("some QP was paced at the minimum rate").isEqualTo(1e8);
        }
        return sim;
    }

    @Test
    void oneSeedGivesOneOutputWithDcqcnAndEveryCounterEndsAtZero() {
        String a = pfcRun(DcqcnConfig.defaults(), 42);
        String b = pfcRun(DcqcnConfig.defaults(), 42);
        String c = pfcRun(DcqcnConfig.defaults(), 43);
        assertThat(a).isEqualTo(b);
        assertThat(c).isNotEqualTo(a);
        assertThat(a).isNotEqualTo(pfcRun(null, 42));
    }

    @Test
    void steadyStateAllocatesNothingPerEventWithDcqcn() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Simulation sim = poissonIncast(DcqcnConfig.defaults(), 16, 2, 0.9, 200_000, 3);
        long warm = 40 * MS; // the pools, queues and heaps reach their size in the first ~30 ms
        sim.runUntil(warm);
        long marks = sim.ecnMarks();
        long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        long events = sim.runUntil(warm + 60 * MS);
        long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        assertThat(events).isGreaterThan(500_000);
        assertThat(sim.ecnMarks()).as("marks in the measured span").isGreaterThan(marks);
        assertThat((double) allocated / events).as("bytes per event").isLessThan(0.05);
    }

    /** {@code senders} hosts with {@code qps} flows each into one receiver; 8 KiB Poisson messages at {@code load}. */
    private static Simulation poissonIncast(DcqcnConfig dcqcn, int senders, int qps, double load, long messages,
                                            long seed) {
        Simulation sim = new Simulation(IncastConfig.defaults().withSwitchBufferBytes(512 * 1024),
                new OneBigSwitch(senders + 1));
        if (dcqcn != null) {
            sim.congestionControl(dcqcn, seed);
        }
        int[] flows = new int[qps * senders];
        for (int i = 0; i < flows.length; i++) {
            flows[i] = sim.addFlow(i / qps, senders);
        }
        double interval = flows.length * 8.0 * 1106 * 320 / load;
        sim.workload(new PoissonWorkload(flows, 8 * 1024, interval, messages, seed));
        return sim;
    }

    /** QueueingValidationTest's PFC run (16 senders × 2 QPs, 90 % load, 512 KiB buffer), with DCQCN if given. */
    private static String pfcRun(DcqcnConfig dcqcn, long seed) {
        int senders = 16;
        Simulation sim = poissonIncast(dcqcn, senders, 2, 0.9, 4000, seed);
        long events = sim.run();
        assertThat(sim.drained()).isTrue();
        assertThat(sim.completions()).isEqualTo(4000);
        assertThat(sim.cnps()).isEqualTo(sim.rateCuts());
        return events + " " + sim.digest() + " " + sim.lastCompletionPs() + " " + sim.xoffTotal() + " "
                + sim.completionPs().getValueAtPercentile(99) + " " + sim.peakQueueBytes(2 * senders + 1) + " "
                + sim.ecnMarks() + " " + sim.cnps();
    }
}
