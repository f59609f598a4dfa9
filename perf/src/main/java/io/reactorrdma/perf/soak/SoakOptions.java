package io.reactorrdma.perf.soak;

import io.reactorrdma.tools.cli.CommandLines;
import io.reactorrdma.tools.cli.UsageException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.Locale;

/**
 * {@code soak [--duration 10m] [--connections 16] [--seed N] [--freeze-ms 2000] [--receive-cancel-share 0.1]
 * [--pause-ms 1]}: how long, how many connections, the seed of every random choice (sizes, actions,
 * cancels), how long the one server is frozen, the share of server connections that cancel their
 * receive part-way, and the pause between one connection's actions (keeps the CPU use modest). Read by picocli.
 */
@Command(name = "soak", sortOptions = false, usageHelpWidth = 120, description = {
        "Two forked soak servers over the shm fabric; the connections send random messages (0 B - 8 MiB),",
        "direct writes and random cancels; one server is frozen (SIGSTOP/SIGCONT) once, the other killed",
        "(SIGKILL) once and restarted. Exits 1 on any violation (corrupt or silently lost message, live",
        "buffers, files left in the run's shm directory, threads left)."})
final class SoakOptions {

    @Option(names = {"-h", "--help"}, usageHelp = true, order = 99, description = "this text")
    boolean help;

    @Option(names = "--duration", paramLabel = "10m|90s|600", order = 1, converter = Millis.class,
            description = "how long the soak runs, at least 5s (default 10m)")
    long durationMillis = 10 * 60_000L;

    @Option(names = "--connections", paramLabel = "N", order = 2, description = "client connections, at least 2 (default 16)")
    int connections = 16;

    @Option(names = "--seed", paramLabel = "N", order = 3, description = "the seed of every random choice (default: the clock)")
    long seed = System.nanoTime();

    @Option(names = "--freeze-ms", paramLabel = "MS", order = 4, description = "how long the one server is frozen (default 2000)")
    long freezeMillis = 2000;

    @Option(names = "--receive-cancel-share", paramLabel = "X", order = 5,
            description = "the share of server connections that cancel their receive part-way, 0..1 (default 0.1)")
    double receiveCancelShare = 0.1;

    @Option(names = "--pause-ms", paramLabel = "MS", order = 6, description = "the pause between one connection's actions (default 1)")
    long pauseMillis = 1;

    /** The text of {@code soak --help}. */
    static String help() {
        PrintStream none = new PrintStream(OutputStream.nullOutputStream());
        return CommandLines.of(new SoakOptions(), none, none).getUsageMessage();
    }

    /**
     * Parses the options after {@code soak}.
     *
     * @throws UsageException saying what is wrong
     */
    static SoakOptions parse(String[] args) {
        SoakOptions o = new SoakOptions();
        PrintStream none = new PrintStream(OutputStream.nullOutputStream());
        try {
            CommandLines.of(o, none, none).parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new UsageException(CommandLines.message(e));
        }
        if (o.durationMillis < 5000) {
            throw new UsageException("--duration must be at least 5s (the freeze and the kill need room), got " + o.durationMillis + " ms");
        }
        if (o.connections < 2) {
            throw new UsageException("--connections must be at least 2 (one goes to the server that is killed), got " + o.connections);
        }
        if (o.receiveCancelShare < 0 || o.receiveCancelShare > 1) {
            throw new UsageException("--receive-cancel-share must be within 0..1, got " + o.receiveCancelShare);
        }
        return o;
    }

    /** {@code 10m}, {@code 90s}, {@code 1500ms} or plain seconds. */
    static long millis(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.endsWith("ms")) {
            return Long.parseLong(v.substring(0, v.length() - 2));
        }
        if (v.endsWith("m")) {
            return Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 60_000);
        }
        if (v.endsWith("s")) {
            return Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 1000);
        }
        return Math.round(Double.parseDouble(v) * 1000);
    }

    /** {@code --duration}. */
    static final class Millis implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return millis(value);
            } catch (NumberFormatException e) {
                throw new UsageException("--duration " + value + " is not a duration such as 10m, 90s, 1500ms or 600 (seconds)");
            }
        }
    }
}
