package io.reactorrdma.verbs.soft;

import io.reactorrdma.config.ProviderConfig;
import io.reactorrdma.verbs.provider.ProviderProbe;
import io.reactorrdma.verbs.ProviderUnavailableException;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.provider.VerbsProviderFactory;

import java.util.List;

/**
 * Registers the software RNIC: {@code soft} and {@code shm} across processes on one host,
 * {@code loopback} within one JVM. Usable everywhere, so {@code auto}'s fallback.
 */
public final class SoftProviderFactory implements VerbsProviderFactory {

    private static final List<String> NAMES = List.of("soft", "shm", "loopback");

    @Override
    public List<String> names() {
        return NAMES;
    }

    @Override
    public int autoPriority() {
        return 0;
    }

    @Override
    public ProviderProbe probe(ProviderConfig config) {
        return new ProviderProbe(true, "the software RNIC (shm) runs on any host");
    }

    @Override
    public VerbsContext open(String name, ProviderConfig config) {
        switch (name) {
            case "soft":
            case "shm":
                return SoftContext.openShm(config.soft());
            case "loopback":
                return SoftContext.openLoopback(config.soft());
            default:
                throw new ProviderUnavailableException("the soft provider has no fabric '" + name + "'; use one of " + NAMES);
        }
    }
}
