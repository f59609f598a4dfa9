/**
 * What a scenario run reports: one {@link io.reactorrdma.perf.report.Result} per transport and run, its columns as
 * numbers ({@link io.reactorrdma.perf.report.Figure}), {@code --repeat}'s medians and median per-run ratios against the
 * baseline ({@link io.reactorrdma.perf.report.RepeatSummary}), all written as a text table or CSV by
 * {@link io.reactorrdma.perf.report.ResultWriter} and drawn as latency-distribution lines by
 * {@link io.reactorrdma.perf.report.LatencyChart} ({@code --chart}).
 */
package io.reactorrdma.perf.report;
