/**
 * incast-sim's output: the readable table and the CSV ({@link io.reactorrdma.incast.report.IncastTable}) and the
 * chart of p99 push latency and PFC pause time against the send window
 * ({@link io.reactorrdma.incast.report.IncastChart}).
 */
package io.reactorrdma.incast.report;
