/**
 * What every command of the CLI shares, at the bottom of the benchmark's packages: the options of a scenario run as
 * picocli reads them ({@link io.reactorrdma.perf.cli.PerfArguments}) and checked together
 * ({@link io.reactorrdma.perf.cli.PerfOptions}), the names on the command line
 * ({@link io.reactorrdma.perf.cli.Scenario}, {@link io.reactorrdma.perf.cli.Transport},
 * {@link io.reactorrdma.perf.cli.PollMode}), a failed run ({@link io.reactorrdma.perf.cli.PerfException}) and the
 * progress log on standard error (the exit statuses and a bad command line are the tools module's). The entry points
 * that read them sit in {@link io.reactorrdma.perf}.
 */
package io.reactorrdma.perf.cli;
