/**
 * incast-sim's trainers' workload: {@link io.reactorrdma.incast.workload.TrainerWorkload} (parameters in
 * {@link io.reactorrdma.incast.workload.TrainerConfig}) runs synchronous or asynchronous trainers that compute, then
 * push one message of a log-normal size ({@link io.reactorrdma.incast.workload.LogNormalSizes}) to every parameter
 * server, through the engine's {@link io.reactorrdma.incast.Workload} interface and its senders' send window.
 */
package io.reactorrdma.incast.workload;
