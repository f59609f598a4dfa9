/**
 * What a scenario run reports: one {@link io.reactorrdma.perf.report.Result} per transport, written as a text table or
 * CSV by {@link io.reactorrdma.perf.report.ResultWriter} and drawn as latency-distribution lines by
 * {@link io.reactorrdma.perf.report.LatencyChart} ({@code --chart}).
 */
package io.reactorrdma.perf.report;
