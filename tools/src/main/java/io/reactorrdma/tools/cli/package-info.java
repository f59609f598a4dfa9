/**
 * The command lines of every program of the project (perf, incast-sim, the demo and its shard, ranker and trainer
 * mains), parsed by picocli: {@link io.reactorrdma.tools.cli.CommandLines} runs a command with the project's exit
 * statuses ({@link io.reactorrdma.tools.cli.ExitStatus}: 2 for a bad command line, with a message that says what is
 * wrong), and {@link io.reactorrdma.tools.cli.Sizes} reads the byte sizes they share ({@code 64k}, {@code 1m}).
 */
package io.reactorrdma.tools.cli;
