package io.reactorrdma.incast;

import io.reactorrdma.incast.topology.IncastConfig;
import io.reactorrdma.incast.topology.OneBigSwitch;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Validations 5 (M/D/1 and Little's law) and 8 (one seed, one output; counters end at zero), and the
 * simulation's steady state allocating nothing per event.
 */
class QueueingValidationTest {

    /** Many sparse senders: their superposition is close to Poisson (each NIC smooths its own arrivals a little). */
    private static final int SENDERS = 256;
    private static final long SER_PACKET = 1106L * 320;

    @Test
    void poissonArrivalsOfOneSizeMakeAnMd1QueueAndLittlesLawHolds() {
        double rho = 0.5;
        Simulation sim = md1(rho, 300_000, 1);
        sim.run();
        int egress = (SENDERS + 1) + SENDERS;
        long n = sim.dequeued(egress);
        assertThat(n).isEqualTo(300_000);
        double meanWait = (double) sim.queueWaitPsSum(egress) / n;
        // the formula at the realized arrival rate: a finite Poisson sample's rate differs from the nominal one by
        // ~0.2 %, which moves ρ/(2μ(1−ρ)) by twice that at ρ = 0.5
        double realizedRho = (n - 1) * (double) SER_PACKET / sim.arrivalSpanPs(egress);
        assertThat(realizedRho).isCloseTo(rho, within(0.01));
        double analytic = realizedRho * SER_PACKET / (2 * (1 - realizedRho)); // ρ/(2μ(1−ρ)), 1/μ = ser(1106 B)
        assertThat(meanWait / analytic).as("mean wait / M/D/1").isCloseTo(1.0, within(0.02));
        // Little: ∫ L dt = Σ W over a run that starts and ends empty, i.e. L = λ·W
        assertThat(sim.queuePacketPsIntegral(egress)).isEqualTo(sim.queueWaitPsSum(egress));
        assertThat(sim.drained()).isTrue();
    }

    @Test
    void oneSeedGivesOneOutputAndEveryCounterEndsAtZero() {
        String a = pfcRun(42);
        String b = pfcRun(42);
        String c = pfcRun(43);
        assertThat(a).isEqualTo(b);
        assertThat(c).isNotEqualTo(a);
    }

    @Test
    void steadyStateAllocatesNothingPerEvent() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Simulation sim = md1(0.7, 400_000, 3);
        long warm = 20_000 * SER_PACKET;
        sim.runUntil(warm);
        long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        long events = sim.runUntil(warm + 100_000 * SER_PACKET);
        long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        assertThat(events).isGreaterThan(500_000);
        assertThat((double) allocated / events).as("bytes per event").isLessThan(0.05);
    }

    private static Simulation md1(double rho, long messages, long seed) {
        Simulation sim = new Simulation(IncastConfig.defaults(), new OneBigSwitch(SENDERS + 1));
        int[] flows = new int[SENDERS];
        for (int h = 0; h < SENDERS; h++) {
            flows[h] = sim.addFlow(h, SENDERS);
        }
        sim.workload(new PoissonWorkload(flows, 1024, SENDERS * SER_PACKET / rho, messages, seed));
        return sim;
    }

    /** Two flows per sender (round-robin in each NIC), 8 KiB messages at 90 % load, a 512 KiB buffer: PFC pauses. */
    private static String pfcRun(long seed) {
        int senders = 16;
        Simulation sim = new Simulation(IncastConfig.defaults().withSwitchBufferBytes(512 * 1024),
                new OneBigSwitch(senders + 1));
        int[] flows = new int[2 * senders];
        for (int i = 0; i < flows.length; i++) {
            flows[i] = sim.addFlow(i / 2, senders);
        }
        double interval = flows.length * 8.0 * 1106 * 320 / 0.9;
        sim.workload(new PoissonWorkload(flows, 8 * 1024, interval, 4000, seed));
        long events = sim.run();
        assertThat(sim.xoffTotal()).as("the run exercises PFC").isPositive();
        assertThat(sim.drained()).isTrue();
        assertThat(sim.completions()).isEqualTo(4000);
        return events + " " + sim.digest() + " " + sim.lastCompletionPs() + " " + sim.xoffTotal() + " "
                + sim.completionPs().getValueAtPercentile(99) + " " + sim.peakQueueBytes(2 * senders + 1);
    }
}
