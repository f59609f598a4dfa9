/**
 * Measuring instruments, test data and the closed-loop machinery shared by the scenarios: CPU time of threads and
 * processes ({@link io.reactorrdma.perf.measure.CpuMeter}), latency histograms, the engines' {@code rdma.*} meters
 * ({@link io.reactorrdma.perf.measure.EngineMeters}), the load other processes put on the host, direct-memory
 * sampling, thread allocation, and the byte patterns payloads are filled with and checked against
 * ({@link io.reactorrdma.perf.measure.EchoTemplates}); the closed loops of a run
 * ({@link io.reactorrdma.perf.measure.MeasuredLoop}, their phases in {@link io.reactorrdma.perf.measure.EchoLoops}),
 * the measured run of echo and the RSocket scenarios ({@link io.reactorrdma.perf.measure.LoopRun}, against the server
 * end as a {@link io.reactorrdma.perf.measure.PeerSide}; its
 * {@link io.reactorrdma.perf.measure.Outcome}), and the resources an RDMA end runs on for a {@code --poll} mode
 * ({@link io.reactorrdma.perf.measure.RdmaEchoResources}).
 */
package io.reactorrdma.perf.measure;
