/**
 * The {@code echo} scenario through the public Reactor API: {@link io.reactorrdma.perf.echo.EchoRunner} sets a transport
 * up, {@link io.reactorrdma.perf.echo.EchoLoop} is one connection's closed loop, the {@code *EchoClient} and
 * {@code *EchoServer} classes are the two ends over RDMA and over Reactor Netty TCP. The loop machinery it shares with
 * the RSocket scenarios (the loops' phases, the measured run) is in {@link io.reactorrdma.perf.measure}.
 */
package io.reactorrdma.perf.echo;
