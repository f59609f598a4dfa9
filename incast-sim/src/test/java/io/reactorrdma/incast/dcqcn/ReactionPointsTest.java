package io.reactorrdma.incast.dcqcn;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The reaction point's lazy closed form against an eager reference that fires every timer period one by one (the
 * textbook loop, as S3 steps it), over random sends, CNPs and idle gaps; and the pacer's gaps.
 */
class ReactionPointsTest {

    private static final long PS_PER_BYTE = 320; // 25 Gb/s
    private static final double LINE = 25e9;
    private static final int WIRE = 1106;

    @Test
    void lazyTimersMatchAnEagerStepByStepReferenceWithTheDefaults() {
        compare(DcqcnConfig.defaults(), 11);
    }

    @Test
    void lazyTimersMatchTheReferenceThroughAdditiveAndHyperIncreaseAndTheByteCounter() {
        // a small byte counter and RAI: recovery takes many steps, the byte count passes F, hyper increase runs
        DcqcnConfig d = DcqcnConfig.defaults();
        DcqcnConfig slow = new DcqcnConfig(true, d.kminBytes(), d.kmaxBytes(), d.pmax(), d.g(), 20_000_000L,
                7_000_000L, 30_000, 3, 20_000_000L, 50_000_000L, d.cnpIntervalPs(), d.minRateBitsPerSecond(),
                d.cnpBytes());
        compare(slow, 12);
        compare(slow, 13);
    }

    @Test
    void theByteCounterOffMeansNoHyperIncrease() {
        DcqcnConfig d = DcqcnConfig.defaults();
        DcqcnConfig noBytes = new DcqcnConfig(true, d.kminBytes(), d.kmaxBytes(), d.pmax(), d.g(), d.alphaTimerPs(),
                d.rateTimerPs(), 0, d.fastRecoverySteps(), 1_000_000L, 1_000_000_000L, d.cnpIntervalPs(),
                d.minRateBitsPerSecond(), d.cnpBytes());
        compare(noBytes, 14);
        ReactionPoints rp = new ReactionPoints(noBytes);
        rp.add(0, PS_PER_BYTE, 0);
        rp.onCnp(0, 0); // α = 1: RC = 12.5 Gb/s, RT = 25 Gb/s
        rp.onSend(0, WIRE, 5 * d.rateTimerPs()); // five fast recovery steps: RC = 25 − 12.5/32
        assertThat(rp.rateBitsPerSecond(0)).isCloseTo(LINE - 12.5e9 / 32, within(1.0));
        assertThat(rp.targetBitsPerSecond(0)).isEqualTo(LINE);
    }

    @Test
    void aQpAtLineRateIsPacedByTheLineAndACutQpByItsRate() {
        ReactionPoints rp = new ReactionPoints(DcqcnConfig.defaults());
        rp.add(0, PS_PER_BYTE, 0);
        assertThat(rp.onSend(0, WIRE, 0)).isEqualTo(WIRE * PS_PER_BYTE);
        rp.onCnp(0, 1_000_000); // α = 1 at the first CNP (a whole α period has not passed): RC = line/2
        assertThat(rp.rateBitsPerSecond(0)).isEqualTo(LINE / 2);
        assertThat(rp.alpha(0)).isEqualTo(1.0);
        assertThat(rp.onSend(0, WIRE, 2_000_000)).isEqualTo(2_000_000 + 2 * WIRE * PS_PER_BYTE);
        // never below the minimum rate
        for (int i = 0; i < 200; i++) {
            rp.onCnp(0, 2_000_000 + i);
        }
        assertThat(rp.rateBitsPerSecond(0)).isEqualTo(DcqcnConfig.DEFAULT_MIN_RATE_BITS_PER_SECOND);
    }

    private static void compare(DcqcnConfig config, long seed) {
        ReactionPoints lazy = new ReactionPoints(config);
        lazy.add(0, PS_PER_BYTE, 0);
        Eager eager = new Eager(config);
        SplittableRandom random = new SplittableRandom(seed);
        long now = 0;
        int cnps = 0;
        for (int i = 0; i < 20_000; i++) {
            int r = random.nextInt(1000);
            now += r < 5 ? random.nextLong(20 * config.rateTimerPs()) : random.nextLong(4 * WIRE * PS_PER_BYTE);
            if (r >= 995 || (r < 40 && cnps < 200)) {
                lazy.onCnp(0, now);
                eager.cnp(now);
                cnps++;
            } else {
                lazy.onSend(0, WIRE, now);
                eager.send(now, WIRE);
            }
            assertThat(lazy.rateBitsPerSecond(0)).as("RC after op %d", i).isCloseTo(eager.rc, within(eager.rc * 1e-9));
            assertThat(lazy.targetBitsPerSecond(0)).as("RT after op %d", i)
                    .isCloseTo(eager.rt, within(eager.rt * 1e-9));
            assertThat(lazy.alpha(0)).as("α after op %d", i).isCloseTo(eager.alpha, within(1e-12));
        }
        assertThat(cnps).isGreaterThan(50);
    }

    /** One QP with every timer period fired one at a time. */
    private static final class Eager {
        final DcqcnConfig c;
        double rc = LINE;
        double rt = LINE;
        double alpha = ReactionPoints.INITIAL_ALPHA;
        long t;
        long bc;
        long bytes;
        long alphaNext;
        long rateNext;

        Eager(DcqcnConfig c) {
            this.c = c;
            alphaNext = c.alphaTimerPs();
            rateNext = c.rateTimerPs();
        }

        void advance(long now) {
            while (alphaNext <= now) {
                alpha *= 1 - c.g();
                alphaNext += c.alphaTimerPs();
            }
            while (rateNext <= now) {
                t++;
                step();
                rateNext += c.rateTimerPs();
            }
        }

        void step() {
            if (rc >= LINE) {
                return;
            }
            long f = c.fastRecoverySteps();
            if (Math.max(t, bc) <= f) {
                rc = (rt + rc) / 2;
            } else if (Math.min(t, bc) > f) {
                rt += (Math.min(t, bc) - f) * (double) c.rhaiBitsPerSecond();
                rc = (rt + rc) / 2;
            } else {
                rt += c.raiBitsPerSecond();
                rc = (rt + rc) / 2;
            }
            rc = Math.min(rc, LINE);
        }

        void send(long now, int wire) {
            advance(now);
            if (c.byteCounterBytes() > 0) {
                bytes += wire;
                if (bytes >= c.byteCounterBytes()) {
                    bytes -= c.byteCounterBytes();
                    bc++;
                    step();
                }
            }
        }

        void cnp(long now) {
            advance(now);
            rt = rc;
            rc = Math.max(rc * (1 - alpha / 2), c.minRateBitsPerSecond());
            alpha = (1 - c.g()) * alpha + c.g();
            t = 0;
            bc = 0;
            bytes = 0;
            alphaNext = now + c.alphaTimerPs();
            rateNext = now + c.rateTimerPs();
        }
    }
}
