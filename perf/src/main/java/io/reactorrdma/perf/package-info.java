/**
 * The perftest-style benchmark CLI ({@code java -jar reactor-rdma-perf.jar <scenario> [options]})
 * and the JMH entry point ({@code ... jmh <JMH args>}).
 *
 * <p>Scenarios: {@code send-lat} (SEND/RECV ping-pong round trip) and {@code write-bw} (RDMA WRITE
 * bandwidth) on the verbs; {@code echo} (closed-loop echo over {@code --connections} connections)
 * through the public Reactor API; {@code rsocket-rr}, {@code rsocket-stream}; {@code fanout} (one client, requests
 * fanned out to replicated shard servers in forked JVMs). Transports: {@code rdma-shm} (the soft provider across two
 * processes), {@code rdma-loopback} (the soft provider, both ends in this JVM), {@code tcp} (echo
 * only: Reactor Netty with a length-field frame codec, the server in a forked process) and two
 * floors that bound what any transport on this host can reach: {@code shm-floor} (two processes
 * ping-ponging a counter in a mapped file) and {@code memcpy} (one thread copying direct buffers); and, only when asked
 * for, {@code ucx}: UCX's own {@code ucx_perftest} over shared memory, a reference outside the JVM for echo and
 * rsocket-stream ({@link io.reactorrdma.perf.ucx}).
 *
 * <p>CPU per operation: for transports with a forked peer ({@code rdma-shm}, {@code shm-floor}) the
 * client figure is this process's CPU time and the server figure the peer process's, both over the
 * measured phase. For {@code rdma-loopback} both ends share a JVM: the client figure is the client
 * thread's CPU time and the server figure the server thread's (ThreadMXBean); the provider threads,
 * JIT and GC of the shared JVM are in neither. For {@code memcpy} the client figure is the copying
 * thread's CPU time. For echo, {@code rdma-shm} and {@code tcp} count both processes as above, and
 * {@code rdma-loopback} counts each side's I/O thread and soft-provider thread.
 *
 * <p>This package holds the entry points: {@link io.reactorrdma.perf.PerfMain} (the jar's main),
 * {@link io.reactorrdma.perf.PeerMain} (the forked peer's main), {@link io.reactorrdma.perf.ScenarioRunner} (sets a
 * transport up and runs a scenario on it), {@code ScenarioRounds} (the poll modes and {@code --repeat} rounds of one
 * invocation), {@code ScenarioCommand} (a scenario run's picocli command), {@code Usage} (the help text around its
 * options) and {@code ServeCommand}; the {@code incast-sim} command is the incast-sim module's. Below them, by
 * concern: the scenarios ({@link io.reactorrdma.perf.verbs}, {@link io.reactorrdma.perf.echo},
 * {@link io.reactorrdma.perf.rsocket}, {@link io.reactorrdma.perf.soak}, {@link io.reactorrdma.perf.fanout}), the
 * floors ({@link io.reactorrdma.perf.floor}), ucx_perftest ({@link io.reactorrdma.perf.ucx}),
 * JMH ({@link io.reactorrdma.perf.jmh}), the peers ({@link io.reactorrdma.perf.peer}), measuring
 * ({@link io.reactorrdma.perf.measure}), reports ({@link io.reactorrdma.perf.report}) and the command line's options
 * and names ({@link io.reactorrdma.perf.cli}). Packages depend only downwards in that order; no scenario sees another
 * except that the shm floor reuses send-lat's stall bound (the closed loops echo and the RSocket scenarios share are
 * in {@link io.reactorrdma.perf.measure}).
 */
package io.reactorrdma.perf;
