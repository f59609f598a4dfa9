package io.reactorrdma.examples.ps.demo;

import io.reactorrdma.examples.ps.demo.measure.Switches;
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
 * @param shardSwitches  context switches of the shard processes' threads over the arm (all, and the transport's I/O
 *                       threads); unknown without Linux's /proc or with shards on other hosts
 * @param rankerSwitches context switches of this JVM's threads over the arm (all, and the transport's I/O threads)
 */
public record InferenceResult(String transport, long requests, long failed, double seconds, Histogram fetchNanos,
                              Histogram requestNanos, long fetchedBytes, long clientCpuNanos, long serverCpuNanos,
                              Switches shardSwitches, Switches rankerSwitches) {

    /** Fetches recorded: each one model's fan-out to every shard (a user request makes one per model). */
    public long fetches() {
        return fetchNanos.getTotalCount();
    }

    /** Context switches of the shards' I/O threads per fetch (summed over the shards the fetch reached); NaN when unknown. */
    public double shardIoSwitchesPerFetch() {
        return shardSwitches.ioPer(fetches());
    }

    /** Context switches of every thread of the shard processes per fetch; NaN when unknown. */
    public double shardSwitchesPerFetch() {
        return shardSwitches.allPer(fetches());
    }

    /** Context switches of the shards' I/O threads per user request answered; NaN when unknown. */
    public double shardIoSwitchesPerRequest() {
        return shardSwitches.ioPer(requests);
    }

    /** Context switches of every thread of the shard processes per user request answered; NaN when unknown. */
    public double shardSwitchesPerRequest() {
        return shardSwitches.allPer(requests);
    }

    /** Context switches of this JVM's I/O threads per fetch; NaN when unknown. */
    public double rankerIoSwitchesPerFetch() {
        return rankerSwitches.ioPer(fetches());
    }

    /** Context switches of every thread of this JVM per user request answered; NaN when unknown. */
    public double rankerSwitchesPerRequest() {
        return rankerSwitches.allPer(requests);
    }

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
