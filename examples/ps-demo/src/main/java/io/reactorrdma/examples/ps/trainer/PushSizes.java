package io.reactorrdma.examples.ps.trainer;

import java.util.SplittableRandom;

/**
 * Push message sizes drawn from a log-normal distribution with a given mean and 99th percentile —
 * by default the paper's training workload, mean ≈ 20 KB and p99 ≈ 50 KB. For a log-normal
 * {@code exp(mu + sigma Z)}: {@code mean = exp(mu + sigma²/2)} and {@code p99 = exp(mu + 2.326 sigma)},
 * so {@code sigma} solves {@code sigma²/2 - 2.326 sigma + ln(p99 / mean) = 0} (the smaller root) and
 * {@code mu = ln(mean) - sigma²/2}. Not thread-safe: one per trainer.
 */
public final class PushSizes {

    /** Mean push size: 20 KiB. */
    public static final int DEFAULT_MEAN_BYTES = 20 * 1024;
    /** 99th-percentile push size: 50 KiB. */
    public static final int DEFAULT_P99_BYTES = 50 * 1024;
    /** The standard normal's 99th percentile. */
    static final double Z99 = 2.3263478740408408;

    private final SplittableRandom random;
    private final double mu;
    private final double sigma;

    /** Sizes with the default mean and p99, drawn from {@code seed}. */
    public PushSizes(long seed) {
        this(seed, DEFAULT_MEAN_BYTES, DEFAULT_P99_BYTES);
    }

    /** Sizes with {@code meanBytes} and {@code p99Bytes}; p99 must exceed the mean and be below e^(Z99²/2) ≈ 15 times it. */
    public PushSizes(long seed, double meanBytes, double p99Bytes) {
        double ratio = Math.log(p99Bytes / meanBytes);
        double discriminant = Z99 * Z99 - 2 * ratio;
        if (!(meanBytes > 0) || !(ratio > 0) || discriminant < 0) {
            throw new IllegalArgumentException("no log-normal has mean " + meanBytes + " and p99 " + p99Bytes
                    + "; give a positive mean and a p99 between 1 and 15 times it");
        }
        this.sigma = Z99 - Math.sqrt(discriminant);
        this.mu = Math.log(meanBytes) - sigma * sigma / 2;
        this.random = new SplittableRandom(seed);
    }

    /** The next push size in bytes (at least 1). */
    public int next() {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.round(Math.exp(mu + sigma * random.nextGaussian()))));
    }

    /** The log-normal's sigma (of the log of the size). */
    public double sigma() {
        return sigma;
    }

    /** The log-normal's mu (the log of the median size). */
    public double mu() {
        return mu;
    }
}
