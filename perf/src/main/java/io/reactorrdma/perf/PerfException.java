package io.reactorrdma.perf;

/** A benchmark run that failed: the peer did not come up, stopped answering, or the data was wrong. */
final class PerfException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    PerfException(String message) {
        super(message);
    }

    PerfException(String message, Throwable cause) {
        super(message, cause);
    }
}
