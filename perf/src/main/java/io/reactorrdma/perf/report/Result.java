package io.reactorrdma.perf.report;

import io.reactorrdma.perf.cli.Scenario;
import io.reactorrdma.perf.cli.Transport;

import org.HdrHistogram.Histogram;

/**
 * One transport's figures. {@code latency} is null and doubles are NaN where a figure does not apply.
 *
 * @param latency          round-trip times in nanoseconds, or null
 * @param mibPerSecond     payload MiB (2^20 bytes) per second, or NaN
 * @param clientCpuUsPerOp client CPU microseconds per operation, or NaN
 * @param serverCpuUsPerOp server CPU microseconds per operation, or NaN
 * @param clientAllocated  bytes the client thread allocated in the measured phase (0 for an
 *                         allocation-free hot loop), or -1 where unknown
 * @param reported         where {@code latency} is null: the round-trip figures an outside tool reported instead of
 *                         its samples (ucx_perftest: the mean and the percentiles it printed), or null
 */
public record Result(Scenario scenario, Transport transport, int sizeBytes, long ops, Histogram latency,
              double mibPerSecond, double clientCpuUsPerOp, double serverCpuUsPerOp, long clientAllocated,
              ReportedLatency reported) {

    /** A result whose latencies, if any, are {@code latency}'s samples. */
    public Result(Scenario scenario, Transport transport, int sizeBytes, long ops, Histogram latency,
                  double mibPerSecond, double clientCpuUsPerOp, double serverCpuUsPerOp, long clientAllocated) {
        this(scenario, transport, sizeBytes, ops, latency, mibPerSecond, clientCpuUsPerOp, serverCpuUsPerOp, clientAllocated, null);
    }

    /** This result with {@code figures} as what an outside tool reported (see {@code reported}). */
    public Result withReported(ReportedLatency figures) {
        return new Result(scenario, transport, sizeBytes, ops, latency, mibPerSecond, clientCpuUsPerOp, serverCpuUsPerOp,
                clientAllocated, figures);
    }

    /** CPU nanoseconds over ops as microseconds per op; NaN when either is unknown. */
    public static double usPerOp(long cpuNanos, long ops) {
        return cpuNanos < 0 || ops <= 0 ? Double.NaN : cpuNanos / 1e3 / ops;
    }

    /** Bytes moved in {@code nanos} as MiB per second. */
    public static double mibPerSecond(long ops, int size, long nanos) {
        return nanos <= 0 ? Double.NaN : (double) ops * size / (1 << 20) / (nanos / 1e9);
    }
}
