package io.reactorrdma.verbs;

/** A verbs call failed synchronously (the equivalent of a non-zero return and errno). Nothing was done. */
public class VerbsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public VerbsException(String message) {
        super(message);
    }

    public VerbsException(String message, Throwable cause) {
        super(message, cause);
    }
}
