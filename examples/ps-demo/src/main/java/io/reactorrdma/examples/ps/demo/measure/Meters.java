package io.reactorrdma.examples.ps.demo.measure;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;

/** Reads the engines' ({@code rdma.*}) and shard clients' ({@code rdma.recovery.*}) meters from a registry, summed over tags. */
public final class Meters {

    private Meters() {
    }

    /** The sum of every counter named {@code name}, plain or function counter (the engines' are the latter); 0 when there is none. */
    public static long count(MeterRegistry registry, String name) {
        return sum(registry.find(name));
    }

    /** The sum of the counters named {@code name} with tag {@code key=value}. */
    public static long count(MeterRegistry registry, String name, String key, String value) {
        return sum(registry.find(name).tag(key, value));
    }

    private static long sum(Search search) {
        double sum = 0;
        for (Counter c : search.counters()) {
            sum += c.count();
        }
        for (FunctionCounter c : search.functionCounters()) {
            sum += c.count();
        }
        return (long) sum;
    }

    /** The largest value of the gauges named {@code name} (0 when there is none; NaN values skipped). */
    public static long max(MeterRegistry registry, String name) {
        return max(registry.find(name));
    }

    /** The largest value of the gauges named {@code name} with tag {@code key=value}. */
    public static long max(MeterRegistry registry, String name, String key, String value) {
        return max(registry.find(name).tag(key, value));
    }

    private static long max(Search search) {
        double max = 0;
        for (Gauge g : search.gauges()) {
            double v = g.value();
            if (!Double.isNaN(v)) {
                max = Math.max(max, v);
            }
        }
        return (long) max;
    }

    /** The sum of the gauges named {@code name} (NaN values, from meters whose source is gone, skipped). */
    public static long sum(MeterRegistry registry, String name) {
        double sum = 0;
        for (Gauge g : registry.find(name).gauges()) {
            double v = g.value();
            if (!Double.isNaN(v)) {
                sum += v;
            }
        }
        return (long) sum;
    }
}
