package io.reactorrdma.verbs.provider;

import io.reactorrdma.config.ProviderConfig;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.ProviderUnavailableException;
import io.reactorrdma.verbs.VerbsContext;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * Opens a verbs provider by name. The providers register themselves
 * ({@link VerbsProviderFactory}, found with {@link ServiceLoader}); those of reactor-rdma are:
 * <ul>
 *   <li>{@code auto} (the default) — {@code ffm} (module reactor-rdma-verbs-ffm, on JDK 22+) where rdma-core loads and
 *       an RDMA device is present, else {@code disni} where libdisni loads and a device is present, else {@code shm};</li>
 *   <li>{@code soft} — the software RNIC on its default fabric, {@code shm};</li>
 *   <li>{@code shm} — the software RNIC across processes on one host (memory-mapped files under /dev/shm);</li>
 *   <li>{@code loopback} — the software RNIC within one JVM;</li>
 *   <li>{@code disni} — RoCE/InfiniBand hardware through DiSNI;</li>
 *   <li>{@code ffm} — RoCE/InfiniBand hardware through rdma-core and the JDK's FFM API, when reactor-rdma-verbs-ffm is on
 *       the class path and the JVM is 22 or later.</li>
 * </ul>
 * A provider that cannot be used here is a {@link ProviderUnavailableException} saying why.
 * The name may also come from the system property {@code reactor.rdma.provider}.
 *
 * <p>Choosing a soft provider never loads DiSNI (nor needs its JVM flags): the DiSNI provider's
 * factory and its probe use no DiSNI type.
 */
public final class Providers {

    private static final Logger LOG = Loggers.getLogger(Providers.class);
    /** The provider in a module of its own: an unknown-provider error for it says where it is. */
    private static final String FFM = "ffm";

    private Providers() {
    }

    /** The names {@link #open(String)} accepts: {@code auto}, then every registered provider's. */
    public static List<String> names() {
        return names(registered());
    }

    /** Opens the provider named by {@code reactor.rdma.provider}, {@code auto} when unset. */
    public static VerbsContext open() {
        return open(ProviderConfig.fromSystemProperties());
    }

    /** Opens the named provider, with the providers' settings from system properties. */
    public static VerbsContext open(String name) {
        return open(ProviderConfig.fromSystemProperties().withName(name));
    }

    /** Opens the named provider; {@code softConfig} applies when a soft provider is chosen. */
    public static VerbsContext open(String name, SoftConfig softConfig) {
        return open(ProviderConfig.fromSystemProperties().withName(name).withSoft(softConfig));
    }

    /** Opens the provider {@code config} names, with its settings. */
    public static VerbsContext open(ProviderConfig config) {
        return open(config, registered());
    }

    /**
     * What each registered provider found on this host, by name, in the order {@code auto} tries
     * them (for startup advice).
     */
    public static Map<String, ProviderProbe> probes() {
        ProviderConfig config = ProviderConfig.fromSystemProperties();
        Map<String, ProviderProbe> probes = new LinkedHashMap<>();
        for (VerbsProviderFactory f : autoOrder(registered())) {
            probes.put(f.names().get(0), f.probe(config));
        }
        return probes;
    }

    /** Opens with the factories given (tests hand in factories pointed at temporary files). */
    static VerbsContext open(ProviderConfig config, List<VerbsProviderFactory> factories) {
        String name = config.name();
        if (ProviderConfig.AUTO.equals(name)) {
            return openAuto(config, factories);
        }
        for (VerbsProviderFactory f : factories) {
            if (f.names().contains(name)) {
                return f.open(name, config);
            }
        }
        throw new ProviderUnavailableException("unknown provider '" + name + "'; use one of " + names(factories)
                + (TOLD.isEmpty() ? "" : " (left out because this JVM cannot load them: " + String.join("; ", TOLD) + ")")
                + (FFM.equals(name) ? "; " + FFM + " is in its own jar, reactor-rdma-verbs-ffm (built with a JDK 22+): put it on "
                + "the class path" : ""));
    }

    private static VerbsContext openAuto(ProviderConfig config, List<VerbsProviderFactory> factories) {
        List<String> passedOver = new ArrayList<>();
        for (VerbsProviderFactory f : autoOrder(factories)) {
            ProviderProbe probe = f.probe(config);
            String name = f.names().get(0);
            if (probe.usable()) {
                if (passedOver.isEmpty()) {
                    LOG.info("provider auto: {}, opening {}", probe.summary(), name);
                } else {
                    LOG.debug("provider auto: using {}, because {}", name, String.join("; ", passedOver));
                }
                return f.open(name, config);
            }
            passedOver.add(probe.summary());
        }
        throw new ProviderUnavailableException("provider 'auto' found no usable provider: " + String.join("; ", passedOver)
                + (factories.isEmpty() ? "no provider is registered (META-INF/services/" + VerbsProviderFactory.class.getName()
                + " is missing from the class path: is reactor-rdma's jar repackaged without it?)" : ""));
    }

    private static List<VerbsProviderFactory> autoOrder(List<VerbsProviderFactory> factories) {
        List<VerbsProviderFactory> ordered = new ArrayList<>(factories);
        ordered.sort(Comparator.comparingInt(VerbsProviderFactory::autoPriority).reversed());
        return ordered;
    }

    private static List<String> names(List<VerbsProviderFactory> factories) {
        List<VerbsProviderFactory> ordered = new ArrayList<>(factories);
        ordered.sort(Comparator.comparingInt(VerbsProviderFactory::autoPriority));
        List<String> names = new ArrayList<>();
        names.add(ProviderConfig.AUTO);
        for (VerbsProviderFactory f : ordered) {
            names.addAll(f.names());
        }
        return List.copyOf(names);
    }

    /**
     * The registered factories. One that cannot be loaded here is left out, said once at WARN: the ffm provider's
     * classes are compiled for Java 22, so on an older JVM its registration names a class this JVM cannot load.
     */
    private static List<VerbsProviderFactory> registered() {
        return loadable(ServiceLoader.load(VerbsProviderFactory.class, Providers.class.getClassLoader()).iterator());
    }

    /** What was left out, once per reason, so the log says it once per JVM. */
    private static final Set<String> TOLD = ConcurrentHashMap.newKeySet();
    /** At most this many registrations that fail to load are passed over (an iterator that keeps failing ends the list). */
    private static final int MAX_UNLOADABLE = 64;

    /**
     * The factories {@code registered} yields, leaving out each one it fails to load. On the class path a class this JVM
     * cannot load comes out of {@code hasNext} as the raw error (an {@link UnsupportedClassVersionError}); on the module
     * path it comes wrapped in a {@link ServiceConfigurationError}. Either way the iterator has moved past it.
     */
    static List<VerbsProviderFactory> loadable(Iterator<VerbsProviderFactory> registered) {
        List<VerbsProviderFactory> factories = new ArrayList<>();
        int failures = 0;
        while (failures < MAX_UNLOADABLE) {
            try {
                if (!registered.hasNext()) {
                    break;
                }
                factories.add(registered.next());
            } catch (ServiceConfigurationError | LinkageError e) {
                failures++;
                String why = e.getCause() != null && !(e instanceof LinkageError) ? e.getMessage() + ": " + e.getCause() : e.toString();
                boolean tooNew = e instanceof UnsupportedClassVersionError || e.getCause() instanceof UnsupportedClassVersionError;
                if (TOLD.add(why)) {
                    LOG.warn("a registered verbs provider cannot be loaded on this JVM (Java {}), left out: {}{}",
                            Runtime.version().feature(), why, tooNew ? "; its classes need a newer Java (ffm: 22 or later)" : "");
                }
            }
        }
        if (failures == MAX_UNLOADABLE) {
            LOG.warn("{} registered verbs providers failed to load; the rest of the registrations were not read", failures);
        }
        return factories;
    }
}
