package io.reactorrdma.perf.report;

import io.reactorrdma.perf.cli.Scenario;
import io.reactorrdma.perf.cli.Transport;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --repeat N}'s summary of one poll mode's rounds: for each transport the median of each {@link Figure} over its
 * runs, and for each ratio figure the median over the rounds of (the transport's figure / the baseline's figure in the
 * same round), so that one noisy run does not decide. A failed run is left out of both; a round counts towards a ratio
 * only where both the transport and the baseline ran in it and both figures are known (the baseline's above 0).
 */
public final class RepeatSummary {

    private final Transport baseline;
    private final int rounds;
    /** Per transport, in the order first seen: its result in each round (index round - 1), null where it failed. */
    private final Map<Transport, Result[]> runs = new LinkedHashMap<>();

    /** A summary of up to {@code rounds} rounds, ratios against {@code baseline}. */
    public RepeatSummary(Transport baseline, int rounds) {
        this.baseline = baseline;
        this.rounds = rounds;
    }

    /** The transport the ratios are taken against. */
    public Transport baseline() {
        return baseline;
    }

    /** Records {@code t}'s run in round {@code round} (1-based); {@code result} null when it failed. */
    public void add(Transport t, int round, Result result) {
        if (round < 1 || round > rounds) {
            throw new IllegalArgumentException("round " + round + " outside 1.." + rounds);
        }
        runs.computeIfAbsent(t, k -> new Result[rounds])[round - 1] = result;
    }

    /** The medians of every transport that ran at least once, in the order the transports first ran. */
    public List<Median> medians() {
        List<Median> out = new ArrayList<>();
        Result[] base = runs.get(baseline);
        if (base != null && Arrays.stream(base).allMatch(r -> r == null)) {
            base = null; // the baseline failed every run: no ratios
        }
        for (Map.Entry<Transport, Result[]> e : runs.entrySet()) {
            Result[] mine = e.getValue();
            Result any = Arrays.stream(mine).filter(r -> r != null).findFirst().orElse(null);
            if (any == null) {
                continue;
            }
            double[] figures = new double[Figure.values().length];
            double[] ratios = new double[Figure.values().length];
            Arrays.fill(ratios, Double.NaN);
            for (Figure f : Figure.values()) {
                figures[f.ordinal()] = median(Arrays.stream(mine).filter(r -> r != null).mapToDouble(f::of).toArray());
            }
            if (base != null) {
                for (Figure f : Figure.RATIOS) {
                    double[] perRound = new double[rounds];
                    for (int i = 0; i < rounds; i++) {
                        perRound[i] = ratio(mine[i], base[i], f);
                    }
                    ratios[f.ordinal()] = median(perRound);
                }
            }
            int ran = (int) Arrays.stream(mine).filter(r -> r != null).count();
            out.add(new Median(any.scenario(), e.getKey(), any.sizeBytes(), ran, figures, base != null ? baseline : null, ratios));
        }
        return out;
    }

    /**
     * The run of {@code t} a chart draws: the one whose p50 is the median p50 of its runs (for an even count the lower of
     * the two middle ones; the earliest on a tie), or null when none has latencies.
     */
    public Result medianRun(Transport t) {
        Result[] mine = runs.get(t);
        if (mine == null) {
            return null;
        }
        List<Result> withLatency = new ArrayList<>();
        for (Result r : mine) {
            if (r != null && r.latency() != null && r.latency().getTotalCount() > 0) {
                withLatency.add(r);
            }
        }
        if (withLatency.isEmpty()) {
            return null;
        }
        List<Result> sorted = new ArrayList<>(withLatency);
        sorted.sort((a, b) -> Double.compare(Figure.P50.of(a), Figure.P50.of(b))); // stable: earliest first on a tie
        return sorted.get((sorted.size() - 1) / 2);
    }

    /** The round (1-based) {@code r} ran in as {@code t}'s run, or -1. */
    public int roundOf(Transport t, Result r) {
        Result[] mine = runs.get(t);
        for (int i = 0; mine != null && i < mine.length; i++) {
            if (mine[i] == r) {
                return i + 1;
            }
        }
        return -1;
    }

    private static double ratio(Result mine, Result base, Figure f) {
        if (mine == null || base == null) {
            return Double.NaN;
        }
        double b = f.of(base);
        double m = f.of(mine);
        return Double.isNaN(m) || !(b > 0) ? Double.NaN : m / b;
    }

    /** The median of the values that are not NaN (the mean of the middle two for an even count); NaN when none is. */
    public static double median(double[] values) {
        double[] known = Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
        int n = known.length;
        if (n == 0) {
            return Double.NaN;
        }
        return n % 2 == 1 ? known[n / 2] : (known[n / 2 - 1] + known[n / 2]) / 2;
    }

    /**
     * One transport's medians.
     *
     * @param runs     how many of its runs succeeded (the medians are over these)
     * @param figures  the median of each {@link Figure}, indexed by ordinal
     * @param baseline the transport the ratios are against, or null when it never ran
     * @param ratios   the median per-run ratio of each of {@link Figure#RATIOS}, indexed by ordinal; NaN elsewhere
     */
    public record Median(Scenario scenario, Transport transport, int sizeBytes, int runs,
                         double[] figures, Transport baseline, double[] ratios) {

        public double figure(Figure f) {
            return figures[f.ordinal()];
        }

        public double ratio(Figure f) {
            return ratios[f.ordinal()];
        }
    }
}
