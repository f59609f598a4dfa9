/**
 * Measuring instruments and test data shared by the scenarios: CPU time of threads and processes
 * ({@link io.reactorrdma.perf.measure.CpuMeter}), latency histograms, the engines' {@code rdma.*} meters
 * ({@link io.reactorrdma.perf.measure.EngineMeters}), the load other processes put on the host, direct-memory
 * sampling, thread allocation, and the byte patterns payloads are filled with and checked against.
 */
package io.reactorrdma.perf.measure;
