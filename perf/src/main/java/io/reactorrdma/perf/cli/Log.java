package io.reactorrdma.perf.cli;

import reactor.util.Logger;
import reactor.util.Loggers;

/** Progress and notes: always standard error, so that with --csv standard output holds only the CSV. */
public final class Log {

    private static final Logger LOG = Loggers.getLogger("io.reactorrdma.perf");

    private Log() {
    }

    public static void info(String message) {
        System.err.println("[perf] " + message);
    }

    /** A failure: one line on standard error, and its stack trace as {@link #stackTrace} logs it. */
    public static void failure(String message, Throwable t) {
        info(message + ": " + t);
        stackTrace(message, t);
    }

    /**
     * A failure's stack trace, through the logger {@code io.reactorrdma.perf}: at WARN (shown by
     * default) with {@code -Dperf.debug=true}, at DEBUG otherwise.
     */
    public static void stackTrace(String message, Throwable t) {
        if (Boolean.getBoolean("perf.debug")) {
            LOG.warn(message, t);
        } else {
            LOG.debug(message, t);
        }
    }
}
