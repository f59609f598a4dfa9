package io.reactorrdma.engine;

/** An engine failed; every socket on it ends with this, naming the peer and the cause. */
public class EngineException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public EngineException(String message) {
        super(message);
    }

    public EngineException(String message, Throwable cause) {
        super(message, cause);
    }
}
