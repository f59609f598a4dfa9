package io.reactorrdma.config;

import java.util.Locale;
import java.util.Objects;

/**
 * Which verbs provider to open, and the settings of the providers that take any. Immutable,
 * checked where it is made; each {@code with…} returns a copy.
 *
 * @param name  {@code auto} (hardware where present, else the software RNIC across processes),
 *              {@code soft}, {@code shm}, {@code loopback} or {@code disni}; trimmed and lower-cased,
 *              {@code auto} when null or blank. Whether a provider of that name is installed is
 *              known when it is opened.
 * @param soft  the soft provider's settings (used when a soft provider is opened)
 * @param disni the DiSNI provider's settings (used when disni is opened)
 */
public record ProviderConfig(String name, SoftConfig soft, DisniConfig disni) {

    /** The name that picks the best provider this host can use. */
    public static final String AUTO = "auto";
    /** The system property {@link #fromSystemProperties()} reads the name from. */
    public static final String PROPERTY = "reactor.rdma.provider";

    public ProviderConfig {
        name = name == null || name.isBlank() ? AUTO : name.trim().toLowerCase(Locale.ROOT);
        Objects.requireNonNull(soft, "soft");
        Objects.requireNonNull(disni, "disni");
    }

    /** {@code auto}, with the providers' defaults. */
    public static ProviderConfig defaults() {
        return new ProviderConfig(AUTO, SoftConfig.defaults(), DisniConfig.defaults());
    }

    /**
     * The name from {@value #PROPERTY} ({@code auto} when unset), the soft settings from
     * {@code reactor.rdma.soft.*} and the DiSNI settings from {@code reactor.rdma.disni.*}.
     */
    public static ProviderConfig fromSystemProperties() {
        return new ProviderConfig(System.getProperty(PROPERTY, AUTO), SoftConfig.fromSystemProperties(),
                DisniConfig.fromSystemProperties());
    }

    public ProviderConfig withName(String name) {
        return new ProviderConfig(name, soft, disni);
    }

    public ProviderConfig withSoft(SoftConfig soft) {
        return new ProviderConfig(name, soft, disni);
    }

    public ProviderConfig withDisni(DisniConfig disni) {
        return new ProviderConfig(name, soft, disni);
    }
}
