package io.reactorrdma.engine;

/**
 * The peer refused or gave up a large message (it could not allocate its destination, or
 * reclaimed the destination before the data came); the message was not delivered, the
 * connection goes on. The message says which peer, why, and what to do.
 */
public class MessageRefusedException extends EngineException {

    private static final long serialVersionUID = 1L;

    public MessageRefusedException(String message) {
        super(message);
    }
}
