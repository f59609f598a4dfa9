package io.reactorrdma.incast;

import io.reactorrdma.incast.topology.IncastConfig;
import io.reactorrdma.incast.topology.OneBigSwitch;
import io.reactorrdma.incast.workload.LogNormalSizes;
import io.reactorrdma.incast.workload.TrainerConfig;
import io.reactorrdma.incast.workload.TrainerWorkload;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * The trainers' workload: the paper's push sizes, the synchronous barrier and the asynchronous iterations, one seed
 * one output, the window acting only on pushes of more than one fragment, and no allocation per event.
 */
class TrainerWorkloadTest {

    private static final long COMPUTE = 20_000_000L; // 20 µs: short runs

    @Test
    void pushSizesHaveThePapersMeanOf20KbAndP99Of50KbWithinSamplingError() {
        TrainerConfig c = TrainerConfig.defaults();
        double mean = c.meanPushBytes();
        double p99 = c.pushBytesAtZ(2.3263478740408408); // Φ⁻¹(0.99)
        assertThat(mean).isCloseTo(20_000, within(200.0));
        assertThat(p99).isCloseTo(50_000, within(500.0));

        int n = 200_000;
        LogNormalSizes sizes = new LogNormalSizes(c.sizeMu(), c.sizeSigma(), 11);
        int[] draws = new int[n];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            draws[i] = sizes.next();
            sum += draws[i];
        }
        // standard errors: of the mean, sd/√n with sd = mean·√(e^σ² − 1) ≈ 9.1 KB, so ≈ 20 B; of the p99,
        // √(p(1−p)/n) / f(p99) with the log-normal density f(x) = φ(z)/(xσ), ≈ 180 B. Five of each.
        double sd = mean * Math.sqrt(Math.exp(c.sizeSigma() * c.sizeSigma()) - 1);
        assertThat(sum / n).isCloseTo(mean, within(5 * sd / Math.sqrt(n)));
        Arrays.sort(draws);
        double z = 2.3263478740408408;
        double density = Math.exp(-z * z / 2) / Math.sqrt(2 * Math.PI) / (p99 * c.sizeSigma());
        double seP99 = Math.sqrt(0.99 * 0.01 / n) / density;
        assertThat((double) draws[(int) Math.ceil(0.99 * n) - 1]).isCloseTo(p99, within(5 * seP99));
    }

    @Test
    void synchronousTrainersWaitForEveryPushOfTheIterationThenComputeThenPushToEveryServer() {
        TrainerConfig config = TrainerConfig.defaults().withIterations(4).withComputePs(COMPUTE);
        Run run = run(6, 3, config, SenderConfig.defaults(), 5);
        assertThat(run.events).hasSize(4);
        for (int i = 0; i < 4; i++) {
            Event e = run.events[i];
            assertThat(e.trainer).as("one event for all trainers").isEqualTo(-1);
            assertThat(e.completedBefore).as("the barrier").isEqualTo(e.postedBefore).isEqualTo(i * 18L);
            assertThat(e.atPs).isEqualTo(e.lastCompletionPs + COMPUTE);
        }
        for (int t = 0; t < 6; t++) {
            assertThat(run.workload.iterationsCompleted(t)).isEqualTo(4);
        }
        assertThat(run.sim.completions()).isEqualTo(4 * 6 * 3);
        assertThat(run.sim.engines().peakMessages()).as("one push per engine at a time").isEqualTo(1);
    }

    @Test
    void asynchronousTrainersStartTheirNextIterationWhenTheirOwnPushesCompleted() {
        TrainerConfig config = TrainerConfig.defaults().withIterations(5).withComputePs(COMPUTE).withSynchronous(false);
        Run run = run(6, 3, config, SenderConfig.defaults(), 5);
        assertThat(run.events).hasSize(6 * 5);
        boolean overlapped = false;
        int[] started = new int[6];
        for (Event e : run.events) {
            assertThat(e.trainer).isBetween(0, 5);
            assertThat(e.trainerIterationsBefore).as("its own pushes done").isEqualTo(started[e.trainer]++);
            overlapped |= e.completedBefore < e.postedBefore; // another trainer's pushes still in flight
        }
        assertThat(overlapped).as("no barrier: trainers overlap").isTrue();
        for (int t = 0; t < 6; t++) {
            assertThat(run.workload.iterationsCompleted(t)).isEqualTo(5);
        }
        assertThat(run.sim.completions()).isEqualTo(5 * 6 * 3);
        assertThat(run.sim.engines().peakMessages()).isEqualTo(1);
    }

    @Test
    void noIterationStartsAfterTheLastStartTime() {
        TrainerConfig config = TrainerConfig.defaults().withIterations(1000).withComputePs(COMPUTE)
                .withLastStartPs(100_000_000L);
        Run run = run(4, 2, config, SenderConfig.defaults(), 1);
        assertThat(run.events.length).isBetween(2, 10);
        for (Event e : run.events) {
            assertThat(e.atPs - COMPUTE).as("compute began by the last start").isLessThanOrEqualTo(100_000_000L);
        }
        // the iteration after the last one would have begun after the last start
        assertThat(run.sim.lastCompletionPs()).isGreaterThan(100_000_000L);
        assertThat(run.workload.iterationsCompleted(0)).isEqualTo(run.events.length).isLessThan(1000);
    }

    @Test
    void oneSeedGivesOneOutput() {
        TrainerConfig config = TrainerConfig.defaults().withIterations(3).withComputePs(COMPUTE).withSynchronous(false);
        SenderConfig window = SenderConfig.defaults().withWindowBytes(16 * 1024);
        String a = run(8, 3, config, window, 42).summary();
        assertThat(run(8, 3, config, window, 42).summary()).isEqualTo(a);
        assertThat(run(8, 3, config, window, 43).summary()).isNotEqualTo(a);
    }

    @Test
    void aWindowCannotHoldBackAPushOfOneFragmentItGoesAloneWhenTheEngineIsEmpty() {
        // one push per engine at a time, all under 64 KiB (σ = 0.2: the largest is ≈ e^(μ + 5σ) ≈ 49 KB): even a
        // 1-byte window grants each whole push at once, so the run is the run without a window
        TrainerConfig config = TrainerConfig.defaults().withIterations(3).withComputePs(COMPUTE)
                .withSize(TrainerConfig.DEFAULT_SIZE_MU, 0.2);
        Run off = run(16, 4, config, SenderConfig.defaults(), 3);
        Run tiny = run(16, 4, config, SenderConfig.defaults().withWindowBytes(1), 3);
        assertThat(tiny.summary()).isEqualTo(off.summary());
        assertThat(tiny.sim.windowStalls()).isZero();
    }

    @Test
    void aSmallWindowBindsOnPushesOfSeveralFragmentsTheWaitIsInThePushLatencyAndWithoutItTheNicBacklogIsDeeper() {
        // the engine's smallest fragment (4 KiB, EngineDefaults.MIN_FRAGMENT_SIZE) cuts a 20 KB push in five
        SenderConfig fragments = new SenderConfig(SenderConfig.WINDOW_OFF, SenderConfig.DEFAULT_CHAIN_DEPTH, 4096);
        TrainerConfig config = TrainerConfig.defaults().withIterations(3).withComputePs(COMPUTE);
        Run off = run(16, 4, config, fragments, 9);
        Run small = run(16, 4, config, fragments.withWindowBytes(8 * 1024), 9);

        assertThat(off.sim.engineWaitPs().getMaxValue()).isZero();
        assertThat(small.sim.windowStalls()).isPositive();
        assertThat(small.sim.engineWaitPs().getMean()).isPositive();
        // push latency counts from the application's post: it is at least the engine wait, message by message
        assertThat(small.sim.completionPs().getMean()).isGreaterThan(small.sim.engineWaitPs().getMean());
        // without the window a trainer's NIC holds all its pushes; with it, at most W per engine
        assertThat(small.sim.peakEngineBytes()).isLessThanOrEqualTo(8 * 1024);
        assertThat(small.sim.peakHostPostedBytes()).isLessThanOrEqualTo(4 * 8 * 1024);
        assertThat(off.sim.peakHostPostedBytes()).isGreaterThan(2 * small.sim.peakHostPostedBytes());
        assertThat(off.sim.completions()).isEqualTo(small.sim.completions()).isEqualTo(3 * 16 * 4);
    }

    @Test
    void badHostListsAreRefusedWithTheReason() {
        Simulation sim = new Simulation(IncastConfig.defaults(), new OneBigSwitch(4));
        assertThatThrownBy(() -> TrainerWorkload.attach(sim, new int[] {0, 1}, new int[] {1}, TrainerConfig.defaults(), 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("trainer 1 and PS 0 are both on host 1");
        assertThatThrownBy(() -> TrainerWorkload.attach(sim, new int[0], new int[] {1}, TrainerConfig.defaults(), 1))
                .hasMessageContaining("at least one of each");
        assertThatThrownBy(() -> TrainerConfig.defaults().withIterations(0)).hasMessageContaining("iterations 0");
        assertThatThrownBy(() -> TrainerConfig.defaults().withSize(30, 0.4)).hasMessageContaining("sizeMu 30");
        assertThatThrownBy(() -> TrainerConfig.defaults().withSize(9, -1)).hasMessageContaining("sizeSigma -1");
        assertThat(TrainerConfig.MAX_PUSH_BYTES).isEqualTo(EngineDefaults.MAX_MESSAGE_SIZE);
    }

    @Test
    void steadyStateAllocatesNothingPerEventWithTheEnginesAndWindowOn() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        SenderConfig sender = new SenderConfig(16 * 1024, SenderConfig.DEFAULT_CHAIN_DEPTH, 4096);
        TrainerConfig config = TrainerConfig.defaults().withIterations(100_000).withComputePs(COMPUTE)
                .withSynchronous(false);
        Simulation sim = new Simulation(IncastConfig.defaults().withSwitchBufferBytes(1L << 20), new OneBigSwitch(20),
                sender);
        TrainerWorkload.attach(sim, range(0, 16), range(16, 4), config, 3);
        long warm = 2_000_000_000L; // 2 ms
        sim.runUntil(warm);
        long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        long events = sim.runUntil(warm + 10_000_000_000L);
        long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        assertThat(sim.windowStalls()).isPositive();
        assertThat(events).isGreaterThan(400_000);
        assertThat((double) allocated / events).as("bytes per event (%d B over %d events)", allocated, events)
                .isLessThan(0.05);
    }

    static int[] range(int from, int n) {
        int[] hosts = new int[n];
        for (int i = 0; i < n; i++) {
            hosts[i] = from + i;
        }
        return hosts;
    }

    /** T trainers on hosts 0..T−1, S servers on the next hosts, one switch. */
    static Run run(int trainers, int servers, TrainerConfig config, SenderConfig sender, long seed) {
        Simulation sim = new Simulation(IncastConfig.defaults().withSwitchBufferBytes(1L << 20),
                new OneBigSwitch(trainers + servers), sender);
        TrainerWorkload w = TrainerWorkload.attach(sim, range(0, trainers), range(trainers, servers), config, seed);
        Recorder recorder = new Recorder(w);
        sim.workload(recorder);
        sim.run();
        assertThat(sim.drained()).isTrue();
        assertThat(w.pushesCompleted()).isEqualTo(w.pushesPosted()).isEqualTo(sim.completions());
        return new Run(sim, w, recorder.events.toArray(new Event[0]));
    }

    record Event(int trainer, long atPs, long postedBefore, long completedBefore, long lastCompletionPs,
                 int trainerIterationsBefore) {
    }

    record Run(Simulation sim, TrainerWorkload workload, Event[] events) {
        String summary() {
            return sim.events() + " " + sim.digest() + " " + sim.lastCompletionPs() + " " + sim.xoffTotal() + " "
                    + sim.completionPs().getValueAtPercentile(99);
        }
    }

    /** Forwards to the trainers' workload and records, at each of its events, what had happened before. */
    private static final class Recorder implements Workload {
        private final TrainerWorkload w;
        private final java.util.List<Event> events = new java.util.ArrayList<>();
        private long lastCompletionPs;
        private final long[] lastCompletionOf;

        Recorder(TrainerWorkload w) {
            this.w = w;
            this.lastCompletionOf = new long[w.trainers()];
        }

        @Override
        public void start(Simulation sim) {
            w.start(sim);
        }

        @Override
        public void onEvent(Simulation sim, int a, int b) {
            long last = a < 0 ? lastCompletionPs : lastCompletionOf[a];
            events.add(new Event(a, sim.nowPs(), w.pushesPosted(), w.pushesCompleted(), last,
                    a < 0 ? w.iterationsCompleted(0) : w.iterationsCompleted(a)));
            if (a >= 0) {
                assertThat(sim.nowPs()).as("trainer %d computes after its own last push", a)
                        .isEqualTo(lastCompletionOf[a] + w.config().computePs());
            }
            w.onEvent(sim, a, b);
        }

        @Override
        public void onComplete(Simulation sim, int flow) {
            lastCompletionPs = sim.nowPs();
            for (int t = 0; t < w.trainers(); t++) {
                for (int s = 0; s < w.servers(); s++) {
                    if (w.flow(t, s) == flow) {
                        lastCompletionOf[t] = sim.nowPs();
                    }
                }
            }
            w.onComplete(sim, flow);
        }
    }
}
