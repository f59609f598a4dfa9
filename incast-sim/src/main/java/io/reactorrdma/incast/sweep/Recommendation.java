package io.reactorrdma.incast.sweep;

import java.util.List;
import java.util.Optional;

/**
 * The recommended send window of a sweep: among the DCQCN arms (each window W of the sweep, and "off", the DCQCN arm
 * without a window), those whose goodput is at least {@value #DEFAULT_GOODPUT_SHARE} of the best of them qualify, and
 * the one with the smallest p99 push latency wins. Ties on p99 go to the higher goodput, then to the larger window
 * ("off" counts as the largest): the least restrictive setting that is as good. The PFC-only arm is a reference, not a
 * candidate: the send window cannot turn DCQCN off.
 */
public final class Recommendation {

    /** An arm qualifies with goodput ≥ this share of the best candidate's goodput. */
    public static final double DEFAULT_GOODPUT_SHARE = 0.95;

    /** The rule as printed with the result. */
    public static final String RULE = "recommended window: the smallest p99 push latency among the DCQCN arms (each W, and off) "
            + "whose goodput is >= " + Math.round(DEFAULT_GOODPUT_SHARE * 100) + " % of the best of them; ties go to the higher "
            + "goodput, then to the larger window (off = largest)";

    private Recommendation() {
    }

    /** The winning arm, or empty when no candidate arm ran or none delivered anything. */
    public static Optional<ArmResult> choose(List<ArmResult> results) {
        double best = 0;
        for (ArmResult r : results) {
            if (r.arm().isWindowCandidate()) {
                best = Math.max(best, r.goodputBitsPerSecond());
            }
        }
        if (!(best > 0)) {
            return Optional.empty();
        }
        ArmResult winner = null;
        for (ArmResult r : results) {
            if (!r.arm().isWindowCandidate() || r.goodputBitsPerSecond() < DEFAULT_GOODPUT_SHARE * best) {
                continue;
            }
            if (winner == null || better(r, winner)) {
                winner = r;
            }
        }
        return Optional.ofNullable(winner);
    }

    private static boolean better(ArmResult a, ArmResult b) {
        if (a.p99Us() != b.p99Us()) {
            return a.p99Us() < b.p99Us();
        }
        if (a.goodputBitsPerSecond() != b.goodputBitsPerSecond()) {
            return a.goodputBitsPerSecond() > b.goodputBitsPerSecond();
        }
        return a.arm().windowOrder() > b.arm().windowOrder();
    }

    /** The line printed last: the winner and why, or why there is none. */
    public static String line(List<ArmResult> results) {
        Optional<ArmResult> winner = choose(results);
        if (winner.isEmpty()) {
            return "recommended window: none (no DCQCN arm ran - add dcqcn or window to --arms - or none delivered anything); rule: "
                    + RULE.substring("recommended window: ".length());
        }
        ArmResult w = winner.get();
        return String.format(java.util.Locale.ROOT, "recommended window: %s (p99 push %.1f us, goodput %.2f Gb/s); rule: %s",
                w.arm().windowLabel(), w.p99Us(), w.goodputBitsPerSecond() / 1e9, RULE.substring("recommended window: ".length()));
    }
}
