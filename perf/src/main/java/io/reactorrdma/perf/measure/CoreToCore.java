package io.reactorrdma.perf.measure;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The host's price of a cache line changing cores: two threads pass a counter back and forth
 * through one cache line and the round trip is timed (the fastest of a few short batches: the first
 * ones may still run interpreted, and a batch a third thread preempts is no price of the host). A small
 * message between two processes costs a few such hand-overs, so on a virtual machine whose two
 * vCPUs the hypervisor places sometimes on one physical core (some 180 ns) and sometimes on
 * distant ones (400 ns and more), spin-mode latencies move with it. Printed before each run, so a
 * slow run can be told from a slow host state.
 */
public final class CoreToCore {

    private static final int BATCHES = 7;
    private static final int ROUND_TRIPS = 4_000;
    /** The counter sits in the middle of the array, a cache line away from its ends and the array header. */
    private static final int SLOT = 16;
    private static final long GIVE_UP_NANOS = 1_000_000_000L;

    private CoreToCore() {
    }

    /**
     * Nanoseconds per round trip (the fastest batch), or -1 when the other thread never answered in time
     * (fewer than two cores free).
     */
    public static double roundTripNanos() {
        AtomicLongArray line = new AtomicLongArray(2 * SLOT + 1);
        long total = (long) BATCHES * ROUND_TRIPS;
        Thread echo = new Thread(() -> {
            long deadline = System.nanoTime() + GIVE_UP_NANOS;
            for (long i = 1; i <= total; i++) {
                while (line.get(SLOT) != 2 * i - 1) {
                    if (System.nanoTime() > deadline) {
                        return;
                    }
                    Thread.onSpinWait();
                }
                line.set(SLOT, 2 * i);
            }
        }, "perf-core-to-core");
        echo.setDaemon(true);
        echo.start();
        double[] perRoundTrip = new double[BATCHES];
        long deadline = System.nanoTime() + GIVE_UP_NANOS;
        long i = 0;
        for (int b = 0; b < BATCHES; b++) {
            long start = System.nanoTime();
            for (int k = 0; k < ROUND_TRIPS; k++) {
                i++;
                line.set(SLOT, 2 * i - 1);
                while (line.get(SLOT) != 2 * i) {
                    if (System.nanoTime() > deadline) {
                        echo.interrupt();
                        return -1;
                    }
                    Thread.onSpinWait();
                }
            }
            perRoundTrip[b] = (System.nanoTime() - start) / (double) ROUND_TRIPS;
        }
        Arrays.sort(perRoundTrip);
        return perRoundTrip[0];
    }

    /** For a log line: "a cache line's round trip between two cores: 430 ns", or that it could not be measured. */
    public static String describe() {
        double ns = roundTripNanos();
        return ns < 0 ? "a cache line's round trip between two cores: not measured (no second core free)"
                : String.format("a cache line's round trip between two cores: %.0f ns", ns);
    }
}
