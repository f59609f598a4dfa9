/**
 * The {@code incast-sim} command ({@code incast-sim.jar}, and {@code reactor-rdma-perf.jar incast-sim}): its options
 * read by picocli ({@link io.reactorrdma.incast.cli.IncastArguments} into
 * {@link io.reactorrdma.incast.cli.IncastOptions}), the fabric of each arm, and the run
 * ({@link io.reactorrdma.incast.cli.IncastSimCommand}).
 */
package io.reactorrdma.incast.cli;
