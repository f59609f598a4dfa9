package io.reactorrdma.verbs;

/** The provider asked for cannot be used here; the message says why and what to do instead. */
public class ProviderUnavailableException extends VerbsException {

    private static final long serialVersionUID = 1L;

    public ProviderUnavailableException(String message) {
        super(message);
    }

    public ProviderUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
