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
        super(property + "=" + describe(value) + " is invalid: " + reason);
        this.property = property;
        this.value = describe(value);
        this.reason = reason;
    }

    /** A size as a user writes it (-1MB, not -1048576B); anything else as text. */
    static String describe(Object value) {
        if (value instanceof org.springframework.util.unit.DataSize size) {
            long b = size.toBytes();
            String[] units = {"TB", "GB", "MB", "KB"};
            long[] bytes = {1L << 40, 1L << 30, 1L << 20, 1L << 10};
            for (int i = 0; i < units.length && b != 0; i++) {
                if (b % bytes[i] == 0) {
                    return (b / bytes[i]) + units[i];
                }
            }
            return b + "B";
        }
        return String.valueOf(value);
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
