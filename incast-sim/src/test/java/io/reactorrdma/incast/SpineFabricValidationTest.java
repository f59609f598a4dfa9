package io.reactorrdma.incast;

import io.reactorrdma.incast.topology.IncastConfig;
import io.reactorrdma.incast.topology.LeafSpine;
import io.reactorrdma.incast.topology.LeafSpineConfig;
import io.reactorrdma.incast.topology.Tier;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The validations on the ToR + spine tier ({@link LeafSpine}), exact in integer picoseconds. Host links run at
 * 25 Gb/s (320 ps per byte), ToR–spine links at 100 Gb/s (80 ps per byte), every link 1 µs. A packet between hosts
 * under different ToRs is stored and forwarded four times (NIC 25G, ToR uplink 100G, spine 100G, ToR downlink 25G)
 * and its ACK four times back, so the base RTT of a packet of w wire bytes is
 * 2·ser25(w) + 2·ser100(w) + 2·ser25(ACK) + 2·ser100(ACK) + 8·delay (8.9536 µs for a full 1106 B packet).
 */
class SpineFabricValidationTest {

    private static final long SER25_PACKET = 1106L * 320;
    private static final long SER100_PACKET = 1106L * 80;
    private static final long SER25_ACK = 86L * 320;
    private static final long SER100_ACK = 86L * 80;
    private static final long DELAY = 1_000_000L;
    private static final long BASE_RTT = 2 * SER25_PACKET + 2 * SER100_PACKET + 2 * SER25_ACK + 2 * SER100_ACK
            + 8 * DELAY;

    private static LeafSpine fabric(int tors, int hostsPerTor, int spines) {
        return new LeafSpine(LeafSpineConfig.defaults().withShape(tors, hostsPerTor, spines));
    }

    @Test
    void aPingAcrossTwoTorsTakesTheAnalyticBaseRttAndOneUnderATorTheOneSwitchRtt() {
        LeafSpine topo = fabric(2, 2, 2);
        Simulation sim = new Simulation(IncastConfig.defaults(), topo);
        sim.post(sim.addFlow(0, 2), 100, 0);
        sim.run();
        assertThat(BASE_RTT).isEqualTo(8_953_600);
        long w = 100 + 82;
        assertThat(sim.lastCompletionPs()).isEqualTo(2 * w * 320 + 2 * w * 80 + 2 * SER25_ACK + 2 * SER100_ACK
                + 8 * DELAY);
        assertThat(sim.drained()).isTrue();

        Simulation local = new Simulation(IncastConfig.defaults(), topo);
        local.post(local.addFlow(0, 1), 100, 0);
        local.run();
        assertThat(local.lastCompletionPs()).isEqualTo(2 * w * 320 + 2 * SER25_ACK + 4 * DELAY);
        assertThat(local.txBytes(topo.uplink(0, 0)) + local.txBytes(topo.uplink(0, 1))).isZero();
    }

    @Test
    void aLongFlowAcrossTheSpineRunsAtHostLineRateTimesMtuOverWireBytes() {
        LeafSpine topo = fabric(2, 2, 2);
        Simulation sim = new Simulation(IncastConfig.defaults(), topo);
        int flow = sim.addFlow(0, 2);
        sim.post(flow, 1 << 20, 0);
        // packet j (from 0) is wholly at the receiver at 2·ser25 + 2·ser100 + 4·delay + j·ser25: the 100G hops
        // are faster than the 25G ones, so nothing queues
        long first = 2 * SER25_PACKET + 2 * SER100_PACKET + 4 * DELAY;
        long t1 = first + 100 * SER25_PACKET;
        long t2 = first + 900 * SER25_PACKET;
        sim.runUntil(t1);
        long delivered1 = sim.deliveredBytes(flow);
        sim.runUntil(t2);
        long delivered2 = sim.deliveredBytes(flow);
        assertThat(delivered1).isEqualTo(101 * 1024);
        // goodput = 25e9 b/s × 1024/1106 exactly
        assertThat((delivered2 - delivered1) * 8 * 1106 * 1_000_000_000_000L)
                .isEqualTo((t2 - t1) * 25_000_000_000L * 1024);
        sim.run();
        assertThat(sim.lastCompletionPs()).isEqualTo(1024 * SER25_PACKET + BASE_RTT - SER25_PACKET);
        assertThat(sim.txBytes(topo.uplink(0, topo.spineOf(flow)))).isEqualTo(1024 * 1106L);
        assertThat(sim.drained()).isTrue();
    }

    @Test
    void ecmpSendsEachFlowOverTheSpineItsHashNamesAndOneFlowKeepsOnePath() {
        int spines = 4;
        LeafSpine topo = fabric(2, 8, spines);
        Simulation sim = new Simulation(IncastConfig.defaults(), topo);
        int flows = 32;
        long[] expectedData = new long[spines];
        long[] expectedAcks = new long[spines];
        for (int k = 0; k < flows; k++) {
            int flow = sim.addFlow(k % 8, 8 + (3 * k) % 8);
            sim.post(flow, 10 * 1024, 0);
            expectedData[topo.spineOf(flow)] += 10 * 1106L;
            expectedAcks[topo.spineOf(flow)] += 86; // 10 packets: one ACK, for the last
        }
        sim.run();
        assertThat(sim.completions()).isEqualTo(flows);
        for (int s = 0; s < spines; s++) {
            assertThat(expectedData[s]).as("spine %d used", s).isPositive();
            assertThat(sim.txBytes(topo.uplink(0, s))).as("data up to spine %d", s).isEqualTo(expectedData[s]);
            assertThat(sim.txBytes(topo.spinePort(s, 1))).isEqualTo(expectedData[s]);
            assertThat(sim.txBytes(topo.uplink(1, s))).as("ACKs back over spine %d", s).isEqualTo(expectedAcks[s]);
        }
        assertThat(sim.drained()).isTrue();

        // one flow, 300 messages of many sizes posted at once: every byte takes one uplink, and the messages complete
        // in order (Flows throws on an ACK out of order)
        Simulation one = new Simulation(IncastConfig.defaults(), topo);
        int flow = one.addFlow(3, 12);
        long wire = 0;
        for (int m = 0; m < 300; m++) {
            int bytes = 1 + (m * 7919) % 5000;
            one.post(flow, bytes, 0);
            wire += bytes + 82L * ((bytes + 1023) / 1024);
        }
        one.run();
        assertThat(one.completions()).isEqualTo(300);
        for (int s = 0; s < spines; s++) {
            assertThat(one.txBytes(topo.uplink(0, s))).isEqualTo(s == topo.spineOf(flow) ? wire : 0);
        }
        assertThat(one.drained()).isTrue();
    }

    @Test
    void anIncastAcrossTorsIsLosslessAndPausesSpreadTierByTierWithCountersThatAddUp() {
        int tors = 3;
        int perTor = 4;
        int spines = 2;
        LeafSpine topo = new LeafSpine(LeafSpineConfig.defaults().withShape(tors, perTor, spines)
                .withSpineBufferBytes(512 * 1024));
        IncastConfig config = IncastConfig.defaults().withSwitchBufferBytes(512 * 1024);
        Simulation sim = new Simulation(config, topo);
        int bytes = 256 * 1024;
        for (int h = perTor; h < tors * perTor; h++) { // the hosts under ToRs 1 and 2 push to host 0
            sim.post(sim.addFlow(h, 0), bytes, 0);
        }
        // Σ(reserve + headroom) per switch, headroom by the port's rate: 9375 B at 25G, 37,500 B at 100G
        long torFixed = perTor * (4096L + 9375) + spines * (4096L + 37_500);
        long spineFixed = tors * (4096L + 37_500);
        assertThat(sim.threshold(0)).isEqualTo((512 * 1024 - torFixed) >> 3);
        assertThat(sim.threshold(tors)).isEqualTo((512 * 1024 - spineFixed) >> 3);

        long[] firstPausePs = new long[Tier.values().length];
        Arrays.fill(firstPausePs, -1);
        long step = 100_000; // 100 ns
        for (long t = step; firstPausePs[Tier.HOST_NIC.ordinal()] < 0 && t < 1_000 * DELAY; t += step) {
            sim.runUntil(t);
            PfcTiers now = PfcTiers.of(sim);
            for (Tier tier : Tier.values()) {
                if (firstPausePs[tier.ordinal()] < 0 && now.xoffs(tier) > 0) {
                    firstPausePs[tier.ordinal()] = t;
                }
            }
        }
        sim.run();

        assertThat(sim.completions()).isEqualTo(tors * perTor - perTor);
        for (int f = 0; f < tors * perTor - perTor; f++) {
            assertThat(sim.deliveredBytes(f)).isEqualTo(bytes);
        }
        assertThat(sim.drained()).as("all buffer counters at zero, nothing queued, all acknowledged").isTrue();
        // nothing finishes before the receiver's link has carried every byte
        assertThat(sim.lastCompletionPs()).isGreaterThan(8L * bytes / 1024 * SER25_PACKET);

        // the receiver's ToR pauses the spines, the spines pause the senders' ToR uplinks, those ToRs the NICs
        long spine = firstPausePs[Tier.SPINE.ordinal()];
        long uplink = firstPausePs[Tier.TOR_UPLINK.ordinal()];
        long nic = firstPausePs[Tier.HOST_NIC.ordinal()];
        assertThat(spine).as("first spine pause").isPositive();
        assertThat(uplink).as("first ToR uplink pause").isGreaterThan(spine);
        assertThat(nic).as("first NIC pause").isGreaterThan(uplink);

        PfcTiers tiers = PfcTiers.of(sim);
        assertThat(tiers.xoffs(Tier.TOR_DOWNLINK)).as("hosts send no PFC").isZero();
        assertThat(tiers.xoffs(Tier.HOST_NIC) + tiers.xoffs(Tier.TOR_DOWNLINK) + tiers.xoffs(Tier.TOR_UPLINK)
                + tiers.xoffs(Tier.SPINE)).isEqualTo(sim.xoffTotal()).isEqualTo(tiers.xoffTotal());
        long nicPaused = 0;
        int nicsPaused = 0;
        for (int h = 0; h < topo.hosts(); h++) {
            nicPaused += sim.pausedPs(h);
            nicsPaused += sim.everPaused(h) ? 1 : 0;
        }
        long uplinkPaused = 0;
        long spinePaused = 0;
        for (int t = 0; t < tors; t++) {
            for (int s = 0; s < spines; s++) {
                uplinkPaused += sim.pausedPs(topo.uplink(t, s));
                spinePaused += sim.pausedPs(topo.spinePort(s, t));
            }
        }
        assertThat(tiers.pausedPs(Tier.HOST_NIC)).isEqualTo(nicPaused).isPositive();
        assertThat(tiers.pausedPs(Tier.TOR_UPLINK)).isEqualTo(uplinkPaused).isPositive();
        assertThat(tiers.pausedPs(Tier.SPINE)).isEqualTo(spinePaused).isPositive();
        assertThat(tiers.everPaused(Tier.HOST_NIC)).isEqualTo(nicsPaused);
        assertThat(tiers.nicsEverPausedShare()).isEqualTo((double) nicsPaused / topo.hosts());
        assertThat(tiers.ports(Tier.HOST_NIC)).isEqualTo(tors * perTor);
        assertThat(tiers.ports(Tier.SPINE)).isEqualTo(tors * spines);
        // within headroom everywhere: no ingress ever held more than reserve + T₀ + its headroom
        for (int sw = 0; sw < topo.switches(); sw++) {
            long fixed = sw < tors ? torFixed : spineFixed;
            long t0 = (512 * 1024 - fixed) >> 3;
            assertThat(sim.maxIngressBytes(sw)).as("switch %d", sw).isLessThanOrEqualTo(4096 + t0 + 37_500);
        }
    }

    @Test
    void oneSeedGivesOneOutputAndEveryCounterEndsAtZeroWithTheSpineTier() {
        String a = poissonRun(42);
        String b = poissonRun(42);
        String c = poissonRun(43);
        assertThat(a).isEqualTo(b);
        assertThat(c).isNotEqualTo(a);
    }

    @Test
    void steadyStateAllocatesNothingPerEventWithTheSpineTier() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        LeafSpine topo = fabric(3, 8, 2);
        Simulation sim = new Simulation(IncastConfig.defaults(), topo);
        int[] flows = new int[16];
        for (int i = 0; i < flows.length; i++) {
            flows[i] = sim.addFlow(8 + i, i % 8); // ToRs 1 and 2 → the 8 hosts of ToR 0, two senders each
        }
        sim.workload(new PoissonWorkload(flows, 1024, 2 * SER25_PACKET / 0.7, 2_000_000, 3));
        long warm = 10_000 * SER25_PACKET;
        sim.runUntil(warm);
        long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        long events = sim.runUntil(warm + 20_000 * SER25_PACKET);
        long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        assertThat(events).isGreaterThan(1_000_000);
        assertThat((double) allocated / events).as("bytes per event").isLessThan(0.05);
    }

    /** Two QPs per sender under ToRs 1 and 2 into two receivers under ToR 0, 8 KiB messages, small buffers: PFC. */
    private static String poissonRun(long seed) {
        LeafSpine topo = new LeafSpine(LeafSpineConfig.defaults().withShape(3, 4, 2).withSpineBufferBytes(512 * 1024));
        Simulation sim = new Simulation(IncastConfig.defaults().withSwitchBufferBytes(512 * 1024), topo);
        int[] flows = new int[16];
        for (int i = 0; i < flows.length; i++) {
            flows[i] = sim.addFlow(4 + i / 2, i % 2);
        }
        // 8 senders' 16 flows share two 25G receivers at 90 % load
        double interval = flows.length * 8.0 * 1106 * 320 / (2 * 0.9);
        sim.workload(new PoissonWorkload(flows, 8 * 1024, interval, 4000, seed));
        long events = sim.run();
        PfcTiers tiers = PfcTiers.of(sim);
        assertThat(tiers.xoffTotal()).as("the run exercises PFC").isPositive();
        assertThat(sim.drained()).isTrue();
        assertThat(sim.completions()).isEqualTo(4000);
        return events + " " + sim.digest() + " " + sim.lastCompletionPs() + " " + sim.xoffTotal() + " "
                + tiers.xoffs(Tier.SPINE) + " " + tiers.xoffs(Tier.TOR_UPLINK) + " " + tiers.xoffs(Tier.HOST_NIC)
                + " " + tiers.pausedPs(Tier.HOST_NIC) + " " + sim.completionPs().getValueAtPercentile(99);
    }
}
