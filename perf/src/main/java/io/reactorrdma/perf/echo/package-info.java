/**
 * The {@code echo} scenario through the public Reactor API: {@link io.reactorrdma.perf.echo.EchoRunner} sets a transport
 * up, {@link io.reactorrdma.perf.echo.EchoLoop} is one connection's closed loop and
 * {@link io.reactorrdma.perf.echo.EchoLoops} all of them with their shared phase, the {@code *EchoClient} and
 * {@code *EchoServer} classes are the two ends over RDMA and over Reactor Netty TCP. {@link io.reactorrdma.perf.echo.LoopRun}
 * measures any set of closed loops (the RSocket scenarios reuse it).
 */
package io.reactorrdma.perf.echo;
