/**
 * The JMH micro-benchmarks ({@code java -jar reactor-rdma-perf.jar jmh ...}): the registered allocator against Netty's
 * ({@link io.reactorrdma.perf.jmh.AllocatorBenchmark}, its matrix and charts by {@code allocator-report}:
 * {@link io.reactorrdma.perf.jmh.AllocatorReportOptions} its options, {@link io.reactorrdma.perf.jmh.AllocatorRun} the
 * measurement, {@link io.reactorrdma.perf.jmh.AllocatorReport} the tables and charts), the memcpy floor
 * ({@link io.reactorrdma.perf.jmh.MemcpyBenchmark}) and
 * RSocket's per-frame cost over RDMA beside its floors ({@link io.reactorrdma.perf.jmh.FrameOverheadBenchmark}).
 */
package io.reactorrdma.perf.jmh;
