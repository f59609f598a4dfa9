package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.config.ProviderConfig;
import io.reactorrdma.verbs.ProviderUnavailableException;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.provider.ProviderProbe;
import io.reactorrdma.verbs.provider.VerbsProviderFactory;

import java.util.List;

/**
 * The {@code ffm} provider's registration, compiled for Java 17 while the rest of this module needs Java 22: on an
 * older JVM it still loads, so {@code auto} passes over ffm with the reason and {@code provider("ffm")} says to run on
 * JDK 22 or to use disni, instead of the registration failing to load. On Java 22 or later it hands everything to
 * {@link FfmProviderFactory}, which it names by string only: this class must not link against a Java 22 class.
 */
public final class FfmRegistration implements VerbsProviderFactory {

    /** The first Java with the final FFM API. */
    static final int FFM_JAVA = 22;
    /** Above the DiSNI provider's 100: the same hardware, no native build, and the device's real limits. */
    static final int AUTO_PRIORITY = 200;
    private static final String FACTORY = "io.reactorrdma.verbs.ffm.provider.FfmProviderFactory";

    private final VerbsProviderFactory factory;
    private final String unavailable;

    /** What {@link java.util.ServiceLoader} creates: for the Java it runs on. */
    public FfmRegistration() {
        this(Runtime.version().feature());
    }

    /** As on a JVM of feature release {@code javaFeature} (tests). */
    FfmRegistration(int javaFeature) {
        VerbsProviderFactory loaded = null;
        String why = null;
        if (javaFeature < FFM_JAVA) {
            why = "ffm needs Java " + FFM_JAVA + " or later (the Foreign Function and Memory API); this is Java " + javaFeature
                    + ": run on JDK " + FFM_JAVA + "+ with --enable-native-access=ALL-UNNAMED, or use provider disni on this JDK";
        } else {
            try {
                loaded = Class.forName(FACTORY).asSubclass(VerbsProviderFactory.class).getConstructor().newInstance();
            } catch (ReflectiveOperationException | LinkageError e) {
                why = "ffm: its provider class cannot be loaded (" + e + "): is reactor-rdma-verbs-ffm's jar complete and on "
                        + "the class path?";
            }
        }
        factory = loaded;
        unavailable = why;
    }

    @Override
    public List<String> names() {
        return List.of("ffm");
    }

    @Override
    public int autoPriority() {
        return AUTO_PRIORITY;
    }

    @Override
    public ProviderProbe probe(ProviderConfig config) {
        return factory == null ? new ProviderProbe(false, unavailable) : factory.probe(config);
    }

    @Override
    public VerbsContext open(String name, ProviderConfig config) {
        if (factory == null) {
            throw new ProviderUnavailableException(unavailable);
        }
        return factory.open(name, config);
    }
}
