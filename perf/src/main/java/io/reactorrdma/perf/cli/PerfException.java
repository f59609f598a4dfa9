package io.reactorrdma.perf.cli;

/** A benchmark run that failed: the peer did not come up, stopped answering, or the data was wrong. */
public final class PerfException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public PerfException(String message) {
        super(message);
    }

    public PerfException(String message, Throwable cause) {
        super(message, cause);
    }
}
