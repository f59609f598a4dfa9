package io.reactorrdma.incast.workload;

import io.reactorrdma.incast.EngineDefaults;

/**
 * The trainers' workload ({@link TrainerWorkload}): how many iterations, how long a trainer computes, the push sizes
 * and whether the trainers wait for each other. Each parameter declared once ({@code DEFAULT_*}) and validated here.
 *
 * @param iterations      iterations per trainer (default {@value #DEFAULT_ITERATIONS}: with the default compute time,
 *                        about a 50 ms run at paper scale)
 * @param computePs       how long a trainer computes before it pushes, ps (default {@value #DEFAULT_COMPUTE_PS} =
 *                        2.2 ms). The paper gives no compute time. At paper scale one iteration brings each PS
 *                        346 × 20 KB = 6.9 MB, which its 25 Gb/s link drains in 2.2 ms (model notes §4); computing
 *                        as long makes a synchronous iteration half compute, half push: the 50 % PS load the notes'
 *                        cost estimate assumes (§5)
 * @param sizeMu          μ of the log-normal push size in bytes (default {@value #DEFAULT_SIZE_MU}); the median is e^μ
 * @param sizeSigma       σ of the log-normal push size (default {@value #DEFAULT_SIZE_SIGMA}); with μ, mean
 *                        e^(μ+σ²/2) ≈ 20 KB and p99 e^(μ+2.326σ) ≈ 50 KB, the paper's training workload (§2.1)
 * @param synchronous     true (default): a barrier, every trainer starts its next iteration when all trainers' pushes
 *                        of this one completed; false: each trainer starts its next iteration when its own pushes
 *                        completed
 * @param lastStartPs     no iteration starts (begins computing) after this time, ps (default {@link Long#MAX_VALUE}:
 *                        only {@code iterations} bounds the run); for a run of a given simulated duration
 */
public record TrainerConfig(int iterations, long computePs, double sizeMu, double sizeSigma, boolean synchronous,
                            long lastStartPs) {

    /** Ten iterations: about 50 ms at paper scale with the default compute time. */
    public static final int DEFAULT_ITERATIONS = 10;
    /** 2.2 ms: as long as a PS's 25 Gb/s link needs for one iteration's pushes at paper scale. */
    public static final long DEFAULT_COMPUTE_PS = 2_200_000_000L;
    /** The paper's push sizes: mean ≈ 20 KB, p99 ≈ 50 KB (model notes §5). */
    public static final double DEFAULT_SIZE_MU = 9.809;
    /** The paper's push sizes: mean ≈ 20 KB, p99 ≈ 50 KB (model notes §5). */
    public static final double DEFAULT_SIZE_SIGMA = 0.435;
    /** Synchronous trainers: the barrier makes every iteration's pushes start together, the worst incast. */
    public static final boolean DEFAULT_SYNCHRONOUS = true;
    /** No deadline: {@code iterations} alone bounds the run. */
    public static final long DEFAULT_LAST_START_PS = Long.MAX_VALUE;
    /** The largest push: the real engine refuses larger messages ({@link EngineDefaults#MAX_MESSAGE_SIZE}). */
    public static final int MAX_PUSH_BYTES = EngineDefaults.MAX_MESSAGE_SIZE;

    /** Validates every parameter; the message names it, its value and what is allowed. */
    public TrainerConfig {
        if (iterations < 1) {
            throw new IllegalArgumentException("iterations " + iterations + ": a trainer runs at least one");
        }
        if (computePs < 0) {
            throw new IllegalArgumentException("computePs " + computePs + ": must not be negative");
        }
        if (!(sizeSigma >= 0) || Double.isInfinite(sizeSigma)) {
            throw new IllegalArgumentException("sizeSigma " + sizeSigma + ": must be a finite number ≥ 0");
        }
        if (!(sizeMu >= 0) || sizeMu > Math.log(MAX_PUSH_BYTES)) {
            throw new IllegalArgumentException("sizeMu " + sizeMu + ": the median push e^μ must be 1 B .. "
                    + MAX_PUSH_BYTES + " B (the engine's largest message), so μ in 0 .. " + Math.log(MAX_PUSH_BYTES));
        }
        if (lastStartPs < 0) {
            throw new IllegalArgumentException("lastStartPs " + lastStartPs + ": must not be negative");
        }
    }

    /** The defaults: 10 synchronous iterations of 2.2 ms compute, then a push of ≈ 20 KB (p99 50 KB) to every PS. */
    public static TrainerConfig defaults() {
        return new TrainerConfig(DEFAULT_ITERATIONS, DEFAULT_COMPUTE_PS, DEFAULT_SIZE_MU, DEFAULT_SIZE_SIGMA,
                DEFAULT_SYNCHRONOUS, DEFAULT_LAST_START_PS);
    }

    /** This config with {@code n} iterations per trainer. */
    public TrainerConfig withIterations(int n) {
        return new TrainerConfig(n, computePs, sizeMu, sizeSigma, synchronous, lastStartPs);
    }

    /** This config with another compute time, ps. */
    public TrainerConfig withComputePs(long ps) {
        return new TrainerConfig(iterations, ps, sizeMu, sizeSigma, synchronous, lastStartPs);
    }

    /** This config with another log-normal push size (μ and σ of the size in bytes). */
    public TrainerConfig withSize(double mu, double sigma) {
        return new TrainerConfig(iterations, computePs, mu, sigma, synchronous, lastStartPs);
    }

    /** This config with synchronous (barrier) or asynchronous trainers. */
    public TrainerConfig withSynchronous(boolean sync) {
        return new TrainerConfig(iterations, computePs, sizeMu, sizeSigma, sync, lastStartPs);
    }

    /** This config with no iteration starting after {@code ps}. */
    public TrainerConfig withLastStartPs(long ps) {
        return new TrainerConfig(iterations, computePs, sizeMu, sizeSigma, synchronous, ps);
    }

    /** The mean push size, bytes: e^(μ + σ²/2) (before the clamp to 1 B .. {@link #MAX_PUSH_BYTES}). */
    public double meanPushBytes() {
        return Math.exp(sizeMu + sizeSigma * sizeSigma / 2);
    }

    /** The push size at standard normal quantile {@code z}, bytes: e^(μ + zσ) (z = 2.326 is the p99). */
    public double pushBytesAtZ(double z) {
        return Math.exp(sizeMu + z * sizeSigma);
    }
}
