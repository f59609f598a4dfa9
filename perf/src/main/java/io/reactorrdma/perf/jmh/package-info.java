/**
 * The JMH micro-benchmarks ({@code java -jar reactor-rdma-perf.jar jmh ...}): the registered allocator against Netty's
 * ({@link io.reactorrdma.perf.jmh.AllocatorBenchmark}, its matrix and charts by {@code allocator-report},
 * {@link io.reactorrdma.perf.jmh.AllocatorReport}) and the memcpy floor ({@link io.reactorrdma.perf.jmh.MemcpyBenchmark}).
 */
package io.reactorrdma.perf.jmh;
