package io.reactorrdma.perf.measure;

import io.reactorrdma.perf.cli.Log;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.report.Result;

/**
 * What one closed-loop run (echo, rsocket-rr, rsocket-stream) measured: the figures, and for RDMA what each engine
 * counted in the measured phase.
 */
public record Outcome(Result result, EngineMeters client, EngineMeters server) {

    /** Prints the engines' meters (RDMA only) and returns the figures. */
    public Result logMeters(Transport t) {
        if (!client.isEmpty()) {
            Log.info(t.id() + " client engine, measured phase: " + client.describe(result.ops()));
            Log.info(t.id() + " server engine, measured phase: " + server.describe(result.ops()));
        }
        return result;
    }
}
