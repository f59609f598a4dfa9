/**
 * The perftest-style benchmark CLI ({@code java -jar reactor-rdma-perf.jar <scenario> [options]})
 * and the JMH entry point ({@code ... jmh <JMH args>}).
 *
 * <p>Scenarios: {@code send-lat} (SEND/RECV ping-pong round trip) and {@code write-bw} (RDMA WRITE
 * bandwidth). Transports: {@code rdma-shm} (the soft provider across two processes),
 * {@code rdma-loopback} (the soft provider, both ends in this JVM) and two floors that bound what
 * any transport on this host can reach: {@code shm-floor} (two processes ping-ponging a counter in
 * a mapped file) and {@code memcpy} (one thread copying direct buffers).
 *
 * <p>CPU per operation: for transports with a forked peer ({@code rdma-shm}, {@code shm-floor}) the
 * client figure is this process's CPU time and the server figure the peer process's, both over the
 * measured phase. For {@code rdma-loopback} both ends share a JVM: the client figure is the client
 * thread's CPU time and the server figure the server thread's (ThreadMXBean); the provider threads,
 * JIT and GC of the shared JVM are in neither. For {@code memcpy} the client figure is the copying
 * thread's CPU time.
 *
 * <p>Classes with one job each: {@link io.reactorrdma.perf.PerfOptions} parses,
 * {@link io.reactorrdma.perf.ScenarioRunner} sets a transport up, the {@code *Client}/{@code *Server}
 * classes run the two ends, {@link io.reactorrdma.perf.PeerSide} is the server end as the client sees
 * it (a forked {@link io.reactorrdma.perf.PeerMain} or a thread), {@link io.reactorrdma.perf.ResultWriter}
 * prints.
 */
package io.reactorrdma.perf;
