package io.reactorrdma.engine;

/** A message larger than the configured maximum was refused; the connection goes on. */
public class MessageTooLargeException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public MessageTooLargeException(String message) {
        super(message);
    }
}
