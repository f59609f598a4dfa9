package io.reactorrdma.verbs.disni;

import io.reactorrdma.config.ProviderConfig;
import io.reactorrdma.verbs.provider.ProviderProbe;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.provider.VerbsProviderFactory;

import java.util.List;
import java.util.Objects;

/**
 * Registers the DiSNI provider, {@code disni}: RoCE/InfiniBand hardware. {@code auto} prefers it
 * where libdisni loads and an RDMA device is present. Like {@link DisniProvider} and
 * {@link DisniEnvironment}, it uses no DiSNI type: registering and probing load no DiSNI class.
 */
public final class DisniProviderFactory implements VerbsProviderFactory {

    private final DisniEnvironment environment;

    /** This host and JVM ({@link DisniEnvironment#system()}); what {@link java.util.ServiceLoader} creates. */
    public DisniProviderFactory() {
        this(DisniEnvironment.system());
    }

    /** With the hardware environment given (tests point it at temporary files). */
    public DisniProviderFactory(DisniEnvironment environment) {
        this.environment = Objects.requireNonNull(environment, "environment");
    }

    @Override
    public List<String> names() {
        return List.of("disni");
    }

    @Override
    public int autoPriority() {
        return 100;
    }

    @Override
    public ProviderProbe probe(ProviderConfig config) {
        DisniProbe probe = environment.probe();
        return probe.hardwarePresent()
                ? new ProviderProbe(true, "RDMA devices " + probe.devices() + " and libdisni found")
                : new ProviderProbe(false, probe.summary());
    }

    @Override
    public VerbsContext open(String name, ProviderConfig config) {
        return DisniProvider.open(environment, config.disni());
    }
}
