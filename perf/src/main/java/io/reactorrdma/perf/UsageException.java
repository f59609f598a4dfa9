package io.reactorrdma.perf;

/** A bad command line; the message says what is wrong and what to use instead. */
final class UsageException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }
}
