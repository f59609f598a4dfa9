/**
 * What every command of the CLI shares, at the bottom of the benchmark's packages: the parsed options of a scenario
 * run ({@link io.reactorrdma.perf.cli.PerfOptions}), the names on the command line
 * ({@link io.reactorrdma.perf.cli.Scenario}, {@link io.reactorrdma.perf.cli.Transport},
 * {@link io.reactorrdma.perf.cli.PollMode}), the exit statuses, the two failures (bad command line, failed run) and the
 * progress log on standard error. The entry points that read them sit in {@link io.reactorrdma.perf}.
 */
package io.reactorrdma.perf.cli;
