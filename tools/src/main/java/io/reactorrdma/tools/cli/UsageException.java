package io.reactorrdma.tools.cli;

/** A bad command line; the message says what is wrong and what to use instead. */
public final class UsageException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }

    /** A whole-number option's lower bound: throws naming the option, the bound and the value given. */
    public static void atLeast(String option, long value, long min) {
        if (value < min) {
            throw new UsageException(option + " must be at least " + min + ", got " + value);
        }
    }
}
