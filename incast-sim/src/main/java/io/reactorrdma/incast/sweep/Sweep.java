package io.reactorrdma.incast.sweep;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Runs the arms of a sweep, each an independent simulation built by a factory: one after another by default, or on
 * a small pool. Each arm's simulation is single-threaded and seeded, so its figures (all but wall time) are the same
 * either way; results come back in the arms' order.
 */
public final class Sweep {

    /** Arms run one after another unless told otherwise (the CI machine has 2 cores). */
    public static final int DEFAULT_THREADS = 1;

    private final Function<Arm, ArmFabric> factory;
    private final long durationPs;
    private final int threads;
    private final Consumer<ArmResult> progress;

    /**
     * @param factory    builds an arm's fabric and workload (called on the thread that runs the arm)
     * @param durationPs simulated time during which the workload posts, ps
     * @param threads    arms run at once, at least 1
     * @param progress   told of each arm as it finishes (from the thread that ran it)
     */
    public Sweep(Function<Arm, ArmFabric> factory, long durationPs, int threads, Consumer<ArmResult> progress) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads " + threads + ": at least 1");
        }
        this.factory = factory;
        this.durationPs = durationPs;
        this.threads = threads;
        this.progress = progress;
    }

    /** Runs every arm; the results in the order of {@code arms}. */
    public List<ArmResult> run(List<Arm> arms) {
        List<ArmResult> results = new ArrayList<>();
        if (threads == 1) {
            for (Arm arm : arms) {
                results.add(runOne(arm));
            }
            return results;
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(threads, Math.max(1, arms.size())), r -> {
            Thread t = new Thread(r, "incast-arm");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<ArmResult>> futures = new ArrayList<>();
            for (Arm arm : arms) {
                futures.add(pool.submit(() -> runOne(arm)));
            }
            for (Future<ArmResult> f : futures) {
                results.add(f.get());
            }
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the arms ran", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(cause);
        } finally {
            pool.shutdownNow();
        }
    }

    private ArmResult runOne(Arm arm) {
        ArmResult r = ArmMeasurement.run(arm, factory.apply(arm), durationPs);
        progress.accept(r);
        return r;
    }
}
