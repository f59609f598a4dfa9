package io.reactorrdma.backpressure;

import java.util.Objects;

/**
 * How many more items a sender could take right now: the source of demand for a
 * {@link CapacityGatedSubscriber}. The engine plugs in its real counters — free work-request
 * slots, the peer's credits, send-window room — usually combined with {@link #min}:
 *
 * <pre>{@code
 * Capacity capacity = Capacity.min(chain::freeSlots, credits::availableForData,
 *         () -> window.room() >= maxFragment || window.isEmpty() ? 1 : 0);
 * }</pre>
 *
 * <p>The unit is items (messages or fragments). A byte bound such as a {@link ByteWindow} maps to
 * items by the engine's choice — e.g. {@code room / maxItemBytes}, or 1 while any room is left.
 *
 * <p>{@link #available()} is read from whichever thread drives the subscriber, without a lock, so
 * it must be thread-safe, quick and allocation-free; it is a snapshot and may be stale by the time
 * an item arrives (see {@link CapacityGatedSubscriber} for what that means for the sink).
 */
@FunctionalInterface
public interface Capacity {

    /** Items that could be taken now; 0 or less means none. {@code Long.MAX_VALUE} means unbounded. */
    long available();

    /**
     * The smallest of several capacities, read in order. Allocates once, when composed.
     */
    static Capacity min(Capacity first, Capacity... rest) {
        Objects.requireNonNull(first, "first");
        Capacity[] all = rest.clone();
        for (Capacity c : all) {
            Objects.requireNonNull(c, "capacity");
        }
        if (all.length == 0) {
            return first;
        }
        return () -> {
            long m = first.available();
            for (Capacity c : all) {
                if (m <= 0) {
                    return m;
                }
                m = Math.min(m, c.available());
            }
            return m;
        };
    }
}
