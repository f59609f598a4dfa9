package io.reactorrdma.incast;

import io.reactorrdma.backpressure.ByteWindow;
import io.reactorrdma.incast.topology.IncastConfig;
import io.reactorrdma.incast.topology.OneBigSwitch;
import io.reactorrdma.incast.workload.TrainerConfig;
import io.reactorrdma.incast.workload.TrainerWorkload;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Validation 7 (docs/INCAST.md): over many random small trainer workloads — push sizes from a byte to several fragments,
 * windows from 1 B to 1 MiB (smaller than a fragment included) or off, one to three trainers per host, synchronous or
 * asynchronous, a roomy or a PFC-pausing buffer — no engine ever has more than W bytes posted and not acknowledged
 * unless one fragment is alone (the window's oversize rule), no engine has more than the chain depth of work requests
 * posted, the project's {@code ByteWindow} agrees with the engine's own count, every push completes, the fabric drains
 * and every window ends empty. An engine's outstanding bytes only grow when it posts, so checking after every post
 * checks every instant.
 */
class SendWindowPropertyTest {

    private static final int CASES = 300;

    @Test
    void outstandingBytesPerEngineNeverExceedTheWindowExceptOneFragmentAlone() {
        SplittableRandom cases = new SplittableRandom(2026);
        long checked = 0;
        long oversizeAlone = 0;
        long severalUnderW = 0;
        long stalled = 0;
        for (int c = 0; c < CASES; c++) {
            long seed = cases.nextLong();
            SplittableRandom r = new SplittableRandom(seed);
            int servers = 1 + r.nextInt(3);
            int trainerHosts = 1 + r.nextInt(4);
            int[] trainers = new int[trainerHosts * (1 + r.nextInt(3))];
            for (int t = 0; t < trainers.length; t++) {
                trainers[t] = servers + t % trainerHosts; // several trainers per host: more QPs per NIC
            }
            int[] serverHosts = TrainerWorkloadTest.range(0, servers);
            long window = r.nextInt(5) == 0 ? SenderConfig.WINDOW_OFF
                    : Math.max(1, (long) Math.exp(r.nextDouble() * Math.log(1 << 20)));
            SenderConfig sender = SenderConfig.defaults().withWindowBytes(window);
            TrainerConfig config = TrainerConfig.defaults().withIterations(1 + r.nextInt(4))
                    .withComputePs(r.nextLong(50_000_000L)).withSynchronous(r.nextBoolean())
                    .withSize(r.nextDouble() * Math.log(200_000), r.nextDouble() * 1.2);
            IncastConfig fabric = IncastConfig.defaults().withSwitchBufferBytes(r.nextBoolean() ? 12L << 20 : 1L << 20);
            Simulation sim = new Simulation(fabric, new OneBigSwitch(servers + trainerHosts), sender);
            TrainerWorkload w = TrainerWorkload.attach(sim, trainers, serverHosts, config, seed);
            String where = "case " + c + " (seed " + seed + ", W " + window + ")";
            long[] counts = new long[3];
            sim.engines().probe(flow -> {
                long out = sim.engines().outstandingBytes(flow);
                int wrs = sim.engines().outstandingWrs(flow);
                assertThat(wrs).as(where).isBetween(1, SenderConfig.DEFAULT_CHAIN_DEPTH);
                ByteWindow bw = sim.engines().window(flow);
                if (bw != null) {
                    assertThat(bw.inFlight()).as(where).isEqualTo(out);
                    assertThat(out <= window || wrs == 1).as("%s: %d B in %d WRs over W", where, out, wrs).isTrue();
                    counts[1] += out > window ? 1 : 0;
                    counts[2] += wrs >= 2 ? 1 : 0;
                }
                counts[0]++;
            });
            sim.run();
            assertThat(w.pushesPosted()).as(where)
                    .isEqualTo((long) trainers.length * servers * config.iterations());
            assertThat(w.pushesCompleted()).as(where).isEqualTo(w.pushesPosted()).isEqualTo(sim.completions());
            assertThat(sim.drained()).as(where).isTrue();
            for (int t = 0; t < trainers.length; t++) {
                for (int s = 0; s < servers; s++) {
                    ByteWindow bw = sim.engines().window(w.flow(t, s));
                    assertThat(bw == null || bw.inFlight() == 0).as(where).isTrue();
                }
            }
            checked += counts[0];
            oversizeAlone += counts[1];
            severalUnderW += counts[2];
            stalled += sim.windowStalls();
        }
        // the cases reach the corners the property is about
        assertThat(checked).isGreaterThan(5_000);
        assertThat(oversizeAlone).as("a fragment larger than W went alone").isPositive();
        assertThat(severalUnderW).as("several fragments in flight under a window").isPositive();
        assertThat(stalled).as("the window held fragments back").isPositive();
    }
}
