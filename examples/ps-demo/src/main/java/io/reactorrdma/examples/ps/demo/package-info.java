/**
 * The {@code demo} command: starts the shards as separate processes, runs inference over RDMA and
 * TCP, training with the send window on and off (and over TCP), kills and restarts a replica in the
 * middle of an inference run, and writes the report. {@link io.reactorrdma.examples.ps.demo.DemoOptions}
 * holds every option and its default (picocli reads them into {@code DemoArguments});
 * {@link io.reactorrdma.examples.ps.demo.DemoRun} runs the phases.
 */
package io.reactorrdma.examples.ps.demo;
