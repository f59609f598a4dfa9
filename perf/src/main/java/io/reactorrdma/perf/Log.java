package io.reactorrdma.perf;

/** Progress and notes: always standard error, so that with --csv standard output holds only the CSV. */
final class Log {

    private Log() {
    }

    static void info(String message) {
        System.err.println("[perf] " + message);
    }
}
