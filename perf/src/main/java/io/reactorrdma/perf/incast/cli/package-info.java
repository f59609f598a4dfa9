/**
 * The {@code incast-sim} command of the perf CLI: its options ({@link io.reactorrdma.perf.incast.cli.IncastOptions}),
 * the fabric of each arm, and the run ({@link io.reactorrdma.perf.incast.cli.IncastSimCommand}).
 */
package io.reactorrdma.perf.incast.cli;
