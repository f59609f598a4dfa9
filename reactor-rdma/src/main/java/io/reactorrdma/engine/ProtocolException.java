package io.reactorrdma.engine;

/** The peer sent something the wire protocol does not allow; the engine closes. */
public class ProtocolException extends EngineException {

    private static final long serialVersionUID = 1L;

    public ProtocolException(String message) {
        super(message);
    }
}
