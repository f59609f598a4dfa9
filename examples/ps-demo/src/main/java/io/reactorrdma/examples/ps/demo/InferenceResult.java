package io.reactorrdma.examples.ps.demo;

import org.HdrHistogram.Histogram;

/**
 * One measured inference arm: the ranker workload over one transport.
 *
 * @param transport      rdma or tcp
 * @param requests       user requests answered
 * @param failed         user requests that failed
 * @param seconds        measured wall time
 * @param fetchNanos     each fetch's whole fan-out time (every shard answered), ns
 * @param requestNanos   each user request's time (k models' fetches and scores), ns
 * @param fetchedBytes   reply bytes of every fetch
 * @param clientCpuNanos CPU time of this JVM over the arm; -1 when unknown
 * @param serverCpuNanos CPU time of the shard processes over the arm; -1 when unknown (shards on other hosts)
 */
public record InferenceResult(String transport, long requests, long failed, double seconds, Histogram fetchNanos,
                              Histogram requestNanos, long fetchedBytes, long clientCpuNanos, long serverCpuNanos) {

    /** User requests answered per second. */
    public double requestsPerSecond() {
        return requests / seconds;
    }

    /** Client CPU per user request in µs; NaN when unknown. */
    public double clientCpuMicrosPerRequest() {
        return perRequest(clientCpuNanos);
    }

    /** Shard CPU per user request in µs; NaN when unknown. */
    public double serverCpuMicrosPerRequest() {
        return perRequest(serverCpuNanos);
    }

    /** Client and shard CPU per user request in µs; NaN when either is unknown. */
    public double totalCpuMicrosPerRequest() {
        return clientCpuNanos < 0 || serverCpuNanos < 0 ? Double.NaN : perRequest(clientCpuNanos + serverCpuNanos);
    }

    private double perRequest(long nanos) {
        return nanos < 0 || requests == 0 ? Double.NaN : nanos / 1e3 / requests;
    }
}
