package io.reactorrdma.examples.ps.demo;

/** A bad {@code demo} option: the message says what is wrong and what to give instead (exit status 2). */
public final class DemoUsageException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /** An error whose {@code message} the user reads as it is. */
    public DemoUsageException(String message) {
        super(message);
    }
}
