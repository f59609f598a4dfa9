package io.reactorrdma.incast.workload;

import java.util.SplittableRandom;

/**
 * Push sizes in bytes, log-normal: round(e^(μ + σ·Z)) with Z from the JDK's {@link SplittableRandom#nextGaussian()}
 * (no allocation), clamped to 1 B .. {@link TrainerConfig#MAX_PUSH_BYTES} (the engine refuses larger messages; at the
 * paper's μ and σ the clamp is 29 σ away and never acts). Seeded: one seed, one sequence.
 */
public final class LogNormalSizes {

    private final double mu;
    private final double sigma;
    private final SplittableRandom random;

    public LogNormalSizes(double mu, double sigma, long seed) {
        this.mu = mu;
        this.sigma = sigma;
        this.random = new SplittableRandom(seed);
    }

    /** The next size, bytes. */
    public int next() {
        long bytes = Math.round(Math.exp(mu + sigma * random.nextGaussian()));
        return (int) Math.max(1, Math.min(TrainerConfig.MAX_PUSH_BYTES, bytes));
    }
}
