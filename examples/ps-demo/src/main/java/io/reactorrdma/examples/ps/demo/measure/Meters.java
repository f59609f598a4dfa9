package io.reactorrdma.examples.ps.demo.measure;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/** Reads the engines' ({@code rdma.*}) and shard clients' ({@code rdma.recovery.*}) meters from a registry, summed over tags. */
public final class Meters {

    private Meters() {
    }

    /** The sum of every counter named {@code name} (0 when there is none). */
    public static long count(MeterRegistry registry, String name) {
        double sum = 0;
        for (Counter c : registry.find(name).counters()) {
            sum += c.count();
        }
        return (long) sum;
    }

    /** The sum of the counters named {@code name} with tag {@code key=value}. */
    public static long count(MeterRegistry registry, String name, String key, String value) {
        double sum = 0;
        for (Counter c : registry.find(name).tag(key, value).counters()) {
            sum += c.count();
        }
        return (long) sum;
    }

    /** The largest value of the gauges named {@code name} (0 when there is none; NaN values skipped). */
    public static long max(MeterRegistry registry, String name) {
        double max = 0;
        for (Gauge g : registry.find(name).gauges()) {
            double v = g.value();
            if (!Double.isNaN(v)) {
                max = Math.max(max, v);
            }
        }
        return (long) max;
    }

    /** The largest value of the gauges named {@code name} with tag {@code key=value}. */
    public static long max(MeterRegistry registry, String name, String key, String value) {
        double max = 0;
        for (Gauge g : registry.find(name).tag(key, value).gauges()) {
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
