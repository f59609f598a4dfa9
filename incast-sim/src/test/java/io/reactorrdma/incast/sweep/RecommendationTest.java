package io.reactorrdma.incast.sweep;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The recommendation rule on synthetic results: smallest p99 among the DCQCN arms with goodput ≥ 95 % of the best. */
class RecommendationTest {

    private static final long MS = 1_000_000_000L;

    /** A result with only what the rule reads: p99 (µs) and goodput (Gb/s over 1 ms of simulated time). */
    static ArmResult result(Arm arm, double p99Us, double goodputGbps) {
        long delivered = Math.round(goodputGbps * 1e9 / 8 / 1000);
        return new ArmResult(arm, 100, p99Us / 2, p99Us, p99Us * 2, new long[4], new long[4], 0, 0, 0, 0, 0, delivered,
                MS, 100_000_000_000L, 1000, 1);
    }

    @Test
    void theSmallestP99AmongArmsWithinFivePercentOfTheBestGoodputWins() {
        List<ArmResult> results = List.of(
                result(Arm.pfc(), 10, 100),                 // PFC only: a reference, never a candidate
                result(Arm.dcqcn(), 900, 80),
                result(Arm.window(8 * 1024), 50, 60),      // lowest p99 but 60 < 0.95 × 80: out
                result(Arm.window(64 * 1024), 300, 76.5),  // 76.5 ≥ 76: in, and the smallest p99 of those in
                result(Arm.window(256 * 1024), 400, 79));
        assertThat(Recommendation.choose(results)).get().extracting(ArmResult::arm).isEqualTo(Arm.window(64 * 1024));
        assertThat(Recommendation.line(results)).startsWith("recommended window: 64k (p99 push 300.0 us")
                .contains(">= 95 % of the best");
    }

    @Test
    void aTieOnP99GoesToTheHigherGoodputThenToTheLargerWindow() {
        List<ArmResult> goodput = List.of(result(Arm.window(16 * 1024), 200, 78), result(Arm.window(32 * 1024), 200, 79),
                result(Arm.window(64 * 1024), 200, 78.5));
        assertThat(Recommendation.choose(goodput)).get().extracting(ArmResult::arm).isEqualTo(Arm.window(32 * 1024));
        List<ArmResult> window = List.of(result(Arm.window(16 * 1024), 200, 79), result(Arm.window(128 * 1024), 200, 79),
                result(Arm.window(32 * 1024), 200, 79));
        assertThat(Recommendation.choose(window)).get().extracting(ArmResult::arm).isEqualTo(Arm.window(128 * 1024));
        List<ArmResult> off = List.of(result(Arm.window(1024 * 1024), 200, 79), result(Arm.dcqcn(), 200, 79));
        assertThat(Recommendation.choose(off)).get().extracting(ArmResult::arm).isEqualTo(Arm.dcqcn());
    }

    @Test
    void offWinsWhenNoWindowBeatsIt() {
        List<ArmResult> results = List.of(result(Arm.pfc(), 100, 80), result(Arm.dcqcn(), 150, 80),
                result(Arm.window(8 * 1024), 120, 50), result(Arm.window(1024 * 1024), 160, 80));
        assertThat(Recommendation.choose(results)).get().extracting(ArmResult::arm).isEqualTo(Arm.dcqcn());
        assertThat(Recommendation.line(results)).startsWith("recommended window: off ");
    }

    @Test
    void noneQualifiesWithoutADcqcnArmOrWithNothingDelivered() {
        List<ArmResult> pfcOnly = List.of(result(Arm.pfc(), 100, 80));
        assertThat(Recommendation.choose(pfcOnly)).isEmpty();
        assertThat(Recommendation.line(pfcOnly)).startsWith("recommended window: none");
        assertThat(Recommendation.choose(List.of(result(Arm.dcqcn(), 0, 0), result(Arm.window(8192), 0, 0)))).isEmpty();
        assertThat(Recommendation.choose(List.of())).isEmpty();
    }
}
