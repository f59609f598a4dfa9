package io.reactorrdma.engine;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** BACK_OFF's spin budget: whole while spinning pays, down to BLOCK's when it does not, and back. */
class AdaptiveSpinTest {

    @Test
    void startsWholeShrinksToBlocksSpinAndGrowsBack() {
        AdaptiveSpin spin = new AdaptiveSpin();
        assertThat(spin.budget()).isEqualTo(AdaptiveSpin.MAX_TURNS);
        for (int i = 0; i < 3; i++) spin.expired();
        assertThat(spin.budget()).isEqualTo(AdaptiveSpin.MAX_TURNS / 8);
        for (int i = 0; i < 20; i++) spin.expired();
        assertThat(spin.budget()).as("never below BLOCK's spin").isEqualTo(AdaptiveSpin.MIN_TURNS);
        for (int i = 0; i < 20; i++) spin.paidOff();
        assertThat(spin.budget()).as("never above the whole spin").isEqualTo(AdaptiveSpin.MAX_TURNS);
    }

    @Test
    void aPingPongThatRarelyOutlastsTheSpinKeepsMostOfIt() {
        // rsocket-rr 64 B on 2 cores: about 5 % of the spins ran out (rdma.idle.waits 0.05 per message)
        AdaptiveSpin spin = new AdaptiveSpin();
        SplittableRandom random = new SplittableRandom(1);
        int least = Integer.MAX_VALUE;
        long sum = 0;
        for (int i = 0; i < 100_000; i++) {
            if (random.nextInt(100) < 5) spin.expired(); else spin.paidOff();
            least = Math.min(least, spin.budget());
            sum += spin.budget();
        }
        assertThat(sum / 100_000.0).as("mean budget").isGreaterThan(0.9 * AdaptiveSpin.MAX_TURNS);
        assertThat(least).as("a run of expiries takes it down, never for long").isGreaterThanOrEqualTo(AdaptiveSpin.MIN_TURNS);
    }

    @Test
    void trafficWhoseGapsMostlyOutlastTheSpinSettlesOnBlocksSpin() {
        // fanout to 16 replicas on 2 cores: about 60 % of the spins ran out (rdma.idle.waits 0.59 per message)
        AdaptiveSpin spin = new AdaptiveSpin();
        SplittableRandom random = new SplittableRandom(2);
        long sum = 0;
        for (int i = 0; i < 100_000; i++) {
            if (random.nextInt(100) < 60) spin.expired(); else spin.paidOff();
            sum += spin.budget();
        }
        assertThat(sum / 100_000.0).as("mean budget").isLessThan(0.3 * AdaptiveSpin.MAX_TURNS);
    }
}
