package io.reactorrdma.rsocket.boot;

/**
 * A {@code reactor.rdma.*} property has a value the library cannot use; names the property, the
 * value and the reason. {@link InvalidRdmaPropertyFailureAnalyzer} turns it into startup advice.
 */
public class InvalidRdmaPropertyException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String property;
    private final String value;
    private final String reason;

    /** {@code property} is the full name ({@code reactor.rdma.engine.eager-size}), {@code reason} why the value is refused. */
    public InvalidRdmaPropertyException(String property, Object value, String reason) {
        super(property + "=" + value + " is invalid: " + reason);
        this.property = property;
        this.value = String.valueOf(value);
        this.reason = reason;
    }

    /** The full property name. */
    public String getProperty() {
        return property;
    }

    /** The value given, as text. */
    public String getValue() {
        return value;
    }

    /** Why the value cannot be used. */
    public String getReason() {
        return reason;
    }
}
