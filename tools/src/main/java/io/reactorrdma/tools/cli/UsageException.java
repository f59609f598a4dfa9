package io.reactorrdma.tools.cli;

/** A bad command line; the message says what is wrong and what to use instead. */
public final class UsageException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }
}
