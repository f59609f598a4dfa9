package io.reactorrdma.engine;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * BACK_OFF's estimate of whether spinning pays, fed deterministic outcomes: spins that mostly pay keep
 * it spinning through a few that do not; spins that mostly do not stop it, and probes bring it back.
 */
class SpinBudgetTest {

    static final long QUICK = 2_000;        // 2 µs: an idle host's request-response
    static final long SLOW = 1_500_000;     // 1.5 ms: the spinner lost its core during the spin

    /** One idle episode: a full spin that ends as {@code nanos} says (negative: it ran out); false if it did not spin in full. */
    private static boolean episode(SpinBudget b, long nanos) {
        return episode(b, nanos, true);
    }

    /** The same, saying whether the work found was the next step of a conversation. */
    private static boolean episode(SpinBudget b, long nanos, boolean conversation) {
        if (!b.spinInFull()) {
            return false;
        }
        if (nanos < 0) {
            b.ranOut();
        } else {
            b.found(nanos, conversation);
        }
        return true;
    }

    @Test
    void spinsThatMostlyPayKeepItSpinningThroughAFewThatRunOut() {
        SpinBudget b = new SpinBudget();
        // 10 % of spins run out, evenly spread: every episode still spins in full
        for (int i = 0; i < 10_000; i++) {
            assertThat(episode(b, i % 10 == 9 ? -1 : QUICK)).as("episode %d spins in full", i).isTrue();
        }
        assertThat(b.spinning()).isTrue();
        assertThat(b.payingShare()).isBetween(0.8, 0.95);
        // a burst of 20 that run out in a row (the peer was descheduled for a while) does not stop it
        for (int i = 0; i < 20; i++) {
            assertThat(episode(b, -1)).as("burst episode %d spins in full", i).isTrue();
        }
        assertThat(b.spinning()).isTrue();
        // and quick hits restore the share: the spin length never shrank, so nothing feeds on itself
        for (int i = 0; i < 200; i++) {
            assertThat(episode(b, QUICK)).isTrue();
        }
        assertThat(b.payingShare()).isGreaterThan(0.95);
    }

    @Test
    void aThirdOfSpinsRunningOutAtRandomStillSpins() {
        SpinBudget b = new SpinBudget();
        java.util.Random random = new java.util.Random(42); // fixed seed: the same sequence every run
        for (int i = 0; i < 100_000; i++) {
            assertThat(episode(b, random.nextInt(3) == 0 ? -1 : QUICK)).as("episode %d", i).isTrue();
        }
        assertThat(b.spinning()).isTrue();
    }

    @Test
    void spinsThatMostlyRunOutStopSpinningAndProbesBringItBack() {
        SpinBudget b = new SpinBudget();
        int episodes = 0;
        while (b.spinning()) {
            assertThat(episode(b, episodes % 5 == 4 ? QUICK : -1)).isTrue(); // 80 % run out
            episodes++;
            assertThat(episodes).as("episodes until it stops spinning").isLessThan(200);
        }
        assertThat(episodes).as("not on a handful of expiries").isGreaterThanOrEqualTo(20);
        assertThat(b.payingShare()).isLessThan(SpinBudget.STOP_BELOW);

        // while blocking, one episode in PROBE_EVERY spins in full; the others block after the short spin;
        // probes that run out double the gap up to PROBE_AT_MOST
        java.util.List<Integer> gaps = new java.util.ArrayList<>();
        int sinceLast = 0;
        for (int i = 0; i < 4 * SpinBudget.PROBE_AT_MOST; i++) {
            sinceLast++;
            if (episode(b, -1)) {
                gaps.add(sinceLast);
                sinceLast = 0;
            }
        }
        assertThat(gaps).startsWith(16, 32, 64, 128, 256, 256);
        assertThat(b.spinning()).isFalse();

        // the host frees up: probes find work quickly, and it spins again
        int untilBack = 0;
        while (!b.spinning()) {
            episode(b, QUICK);
            untilBack++;
            assertThat(untilBack).as("episodes until it spins again").isLessThan(100 * SpinBudget.PROBE_EVERY);
        }
        assertThat(b.payingShare()).isGreaterThanOrEqualTo(SpinBudget.RESUME_AT);
        for (int i = 0; i < 100; i++) {
            assertThat(episode(b, QUICK)).isTrue();
        }
    }

    @Test
    void spinsThatFindWorkOnlyLateDoNotPay() {
        SpinBudget b = new SpinBudget();
        int episodes = 0;
        while (b.spinning()) {
            episode(b, SLOW); // every spin finds work, but only after its thread was descheduled
            episodes++;
            assertThat(episodes).isLessThan(200);
        }
        // found at exactly the bound still pays; just above it does not
        SpinBudget edge = new SpinBudget(1_000, 1_000, 1, 0.5, 0.75, 1, 1);
        edge.found(1_000, true);
        assertThat(edge.spinning()).isTrue();
        edge.found(1_001, true);
        assertThat(edge.spinning()).isFalse();
    }

    @Test
    void hysteresisKeepsItFromFlappingAroundOneThreshold() {
        // window 4: share moves by a quarter of the gap per spin
        SpinBudget b = new SpinBudget(1_000, 1_000, 4, 0.5, 0.75, 1, 1);
        b.ranOut(); // 0.75
        b.ranOut(); // 0.5625
        assertThat(b.spinning()).isTrue();
        b.ranOut(); // 0.42
        assertThat(b.spinning()).isFalse();
        b.found(10, true); // 0.57: above STOP_BELOW, not yet RESUME_AT
        assertThat(b.spinning()).isFalse();
        b.found(10, true); // 0.68
        assertThat(b.spinning()).isFalse();
        b.found(10, true); // 0.76
        assertThat(b.spinning()).isTrue();
    }

    @Test
    void blockingEpisodesThatSkipTheSpinAreNotCounted() {
        SpinBudget b = new SpinBudget(1_000, 1_000, 1, 0.5, 0.75, 4, 4);
        b.ranOut();
        assertThat(b.spinning()).isFalse();
        double share = b.payingShare();
        assertThat(b.spinInFull()).isFalse();
        assertThat(b.spinInFull()).isFalse();
        assertThat(b.spinInFull()).isFalse();
        assertThat(b.payingShare()).isEqualTo(share);
        assertThat(b.spinInFull()).as("the fourth is a probe").isTrue();
        assertThat(b.spinInFull()).isFalse();
    }

    @Test
    void aProbeThatPaysBringsTheProbesBackToTheirShortestGap() {
        SpinBudget b = new SpinBudget(1_000, 1_000, 64, 0.4, 0.6, 2, 8);
        for (int i = 0; b.spinning(); i++) {
            assertThat(i).as("episodes until it stops spinning").isLessThan(200);
            episode(b, -1);
        }
        assertThat(b.probeGap()).isEqualTo(2);
        for (int i = 0; b.probeGap() < 8; i++) { // probes that run out: gap 2, 4, 8
            assertThat(i).isLessThan(100);
            episode(b, -1);
        }
        for (int i = 0; !b.spinInFull(); i++) {
            assertThat(i).as("blocking episodes until the next probe").isLessThan(8);
        }
        b.found(10, true); // it pays
        assertThat(b.spinning()).as("one paying probe is not enough to resume").isFalse();
        assertThat(b.probeGap()).isEqualTo(2);
    }

    @Test
    void workFromAnyPeerPaysWithinTheCheapWindowAndAConversationsAnswerWithinThePayingOne() {
        SpinBudget b = new SpinBudget();
        assertThat(b.pays(SpinBudget.CHEAP_NANOS, false)).isTrue();
        assertThat(b.pays(SpinBudget.CHEAP_NANOS + 1, false)).isFalse();
        assertThat(b.pays(SpinBudget.PAYING_NANOS, true)).isTrue();
        assertThat(b.pays(SpinBudget.PAYING_NANOS + 1, true)).isFalse();
    }

    @Test
    void aStreamsAnswersFortyMicrosecondsApartKeepItSpinning() {
        // one end of a 1 MiB stream: each frame's notice comes ~40 µs after the spin began (the peer's copy), from
        // the peer it sent to: every episode spins in full, as two ends that both block would each wait for a wake-up
        SpinBudget b = new SpinBudget();
        for (int i = 0; i < 100_000; i++) {
            assertThat(episode(b, 40_000, true)).as("episode %d spins in full", i).isTrue();
        }
    }

    @Test
    void aFanOutsRepliesFromOtherPeersStopTheSpinAndProbesKeepItBlocking() {
        // a fan-out client: the replies of 8 peers come 4-63 µs apart into the spin (as measured on a 2-core host);
        // only the peer posted to last is in a conversation. It stops spinning, and its probes find the same.
        SpinBudget b = new SpinBudget();
        long[] gaps = {2_000, 6_000, 12_000, 20_000, 28_000, 40_000, 55_000, 80_000};
        int full = 0;
        int episodes = 20_000;
        for (int i = 0; i < episodes; i++) {
            if (episode(b, gaps[i % gaps.length], i % gaps.length == 7)) {
                full++;
            }
        }
        assertThat(b.spinning()).isFalse();
        assertThat(full).as("full spins of %d episodes", episodes).isLessThan(episodes / 20);
    }

    @Test
    void refusesSettingsThatCannotWork() {
        assertThatThrownBy(() -> new SpinBudget(0, 0, 32, 0.5, 0.75, 16, 16)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SpinBudget(1, 1, 0, 0.5, 0.75, 16, 16)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SpinBudget(1, 2, 32, 0.5, 0.75, 16, 16)).as("cheap above paying")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SpinBudget(1, -1, 32, 0.5, 0.75, 16, 16)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SpinBudget(1, 1, 32, 0.8, 0.75, 16, 16)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SpinBudget(1, 1, 32, 0, 0.75, 16, 16)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SpinBudget(1, 1, 32, 0.5, 1.5, 16, 16)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SpinBudget(1, 1, 32, 0.5, 0.75, 0, 16)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SpinBudget(1, 1, 32, 0.5, 0.75, 16, 8)).isInstanceOf(IllegalArgumentException.class);
    }
}
