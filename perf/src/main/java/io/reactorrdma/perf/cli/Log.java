package io.reactorrdma.perf.cli;

/** Progress and notes: always standard error, so that with --csv standard output holds only the CSV. */
public final class Log {

    private Log() {
    }

    public static void info(String message) {
        System.err.println("[perf] " + message);
    }
}
