package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.config.ProviderConfig;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.ffm.rdmacore.Libibverbs;
import io.reactorrdma.verbs.ffm.rdmacore.cm.Librdmacm;
import io.reactorrdma.verbs.provider.ProviderProbe;
import io.reactorrdma.verbs.provider.VerbsProviderFactory;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.function.Supplier;

/**
 * The FFM provider, {@code ffm}: RoCE/InfiniBand hardware through rdma-core, no native code of its own, on JDK 22 or
 * later. {@code auto} prefers it to {@code disni} where rdma-core loads and sees a device. Registered through
 * {@link FfmRegistration}, which loads on any Java and creates this factory on Java 22 or later.
 */
public final class FfmProviderFactory implements VerbsProviderFactory {

    private final Supplier<FfmSettings> settings;

    /** Settings from system properties, read at each probe and open; what {@link java.util.ServiceLoader} creates. */
    public FfmProviderFactory() {
        this(FfmSettings::fromSystemProperties);
    }

    /** With the settings given (tests point it at the emulated rdma-core). */
    public FfmProviderFactory(Supplier<FfmSettings> settings) {
        this.settings = settings;
    }

    @Override
    public List<String> names() {
        return List.of("ffm");
    }

    @Override
    public int autoPriority() {
        return FfmRegistration.AUTO_PRIORITY;
    }

    /** Loads rdma-core and lists its devices (then unloads it): usable when both libraries load and a device exists. */
    @Override
    public ProviderProbe probe(ProviderConfig config) {
        FfmSettings s;
        try {
            s = settings.get();
        } catch (IllegalArgumentException e) {
            return new ProviderProbe(false, "ffm: " + e.getMessage());
        }
        try (Arena arena = Arena.ofConfined()) {
            Libibverbs verbs = Libibverbs.open(s.libibverbs(), arena);
            List<String> devices = verbs.deviceNames();
            Librdmacm.open(s.librdmacm(), verbs, arena);
            return new ProviderProbe(true, "JDK " + Runtime.version().feature() + ", rdma-core and RDMA devices " + devices
                    + " found");
        } catch (RuntimeException e) {
            // rdma-core missing or without a device, or native access refused to this module (IllegalCallerException):
            // auto passes over ffm to the next provider either way
            return new ProviderProbe(false, "ffm: " + e.getMessage());
        }
    }

    @Override
    public VerbsContext open(String name, ProviderConfig config) {
        return FfmContext.open(settings.get());
    }
}
