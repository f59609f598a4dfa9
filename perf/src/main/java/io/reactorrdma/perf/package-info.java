/**
 * The perftest-style benchmark CLI ({@code java -jar reactor-rdma-perf.jar <scenario> [options]})
 * and the JMH entry point ({@code ... jmh <JMH args>}).
 *
 * <p>Scenarios: {@code send-lat} (SEND/RECV ping-pong round trip) and {@code write-bw} (RDMA WRITE
 * bandwidth) on the verbs; {@code echo} (closed-loop echo over {@code --connections} connections)
 * through the public Reactor API. Transports: {@code rdma-shm} (the soft provider across two
 * processes), {@code rdma-loopback} (the soft provider, both ends in this JVM), {@code tcp} (echo
 * only: Reactor Netty with a length-field frame codec, the server in a forked process) and two
 * floors that bound what any transport on this host can reach: {@code shm-floor} (two processes
 * ping-ponging a counter in a mapped file) and {@code memcpy} (one thread copying direct buffers).
 *
 * <p>CPU per operation: for transports with a forked peer ({@code rdma-shm}, {@code shm-floor}) the
 * client figure is this process's CPU time and the server figure the peer process's, both over the
 * measured phase. For {@code rdma-loopback} both ends share a JVM: the client figure is the client
 * thread's CPU time and the server figure the server thread's (ThreadMXBean); the provider threads,
 * JIT and GC of the shared JVM are in neither. For {@code memcpy} the client figure is the copying
 * thread's CPU time. For echo, {@code rdma-shm} and {@code tcp} count both processes as above, and
 * {@code rdma-loopback} counts each side's I/O thread and soft-provider thread.
 *
 * <p>Classes with one job each: {@link io.reactorrdma.perf.PerfOptions} parses,
 * {@link io.reactorrdma.perf.ScenarioRunner} sets a transport up, the {@code *Client}/{@code *Server}
 * classes run the two ends, {@link io.reactorrdma.perf.PeerSide} is the server end as the client sees
 * it (a forked {@link io.reactorrdma.perf.PeerMain} or a thread), {@link io.reactorrdma.perf.ResultWriter}
 * prints. Echo: {@link io.reactorrdma.perf.EchoRunner} sets a transport up,
 * {@link io.reactorrdma.perf.EchoLoop} is one connection's closed loop, the {@code *EchoClient} and
 * {@code *EchoServer} classes are the two ends per transport, {@link io.reactorrdma.perf.EngineMeters}
 * reads the engines' {@code rdma.*} meters.
 */
package io.reactorrdma.perf;
