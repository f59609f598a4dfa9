package io.reactorrdma.verbs;

import io.reactorrdma.verbs.disni.DisniConfig;
import io.reactorrdma.verbs.disni.DisniEnvironment;
import io.reactorrdma.verbs.disni.DisniProbe;
import io.reactorrdma.verbs.disni.DisniProvider;
import io.reactorrdma.verbs.soft.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;

import java.util.List;
import java.util.Locale;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * Opens a verbs provider by name:
 * <ul>
 *   <li>{@code auto} (the default) — {@code disni} where libdisni loads and an RDMA device is present,
 *       else {@code shm};</li>
 *   <li>{@code soft} — the software RNIC on its default fabric, {@code shm};</li>
 *   <li>{@code shm} — the software RNIC across processes on one host (memory-mapped files under /dev/shm);</li>
 *   <li>{@code loopback} — the software RNIC within one JVM;</li>
 *   <li>{@code disni} — RoCE/InfiniBand hardware through DiSNI.</li>
 * </ul>
 * A provider that cannot be used here is a {@link ProviderUnavailableException} saying why.
 * The name may also come from the system property {@code reactor.rdma.provider}.
 *
 * <p>Only the {@code io.reactorrdma.verbs.disni} classes that use no DiSNI type are referenced
 * here, so choosing a soft provider never loads DiSNI (nor needs its JVM flags).
 */
public final class Providers {

    /** The names {@link #open(String)} accepts. */
    public static final List<String> NAMES = List.of("auto", "soft", "shm", "loopback", "disni");

    private static final Logger LOG = Loggers.getLogger(Providers.class);

    private Providers() {
    }

    /** Opens the provider named by {@code reactor.rdma.provider}, {@code auto} when unset. */
    public static VerbsContext open() {
        return open(System.getProperty("reactor.rdma.provider", "auto"));
    }

    /** Opens the named provider, with soft-provider settings from system properties. */
    public static VerbsContext open(String name) {
        return open(name, SoftConfig.fromSystemProperties());
    }

    /** Opens the named provider; {@code softConfig} applies when the soft provider is chosen. */
    public static VerbsContext open(String name, SoftConfig softConfig) {
        return open(name, softConfig, DisniEnvironment.system(), DisniConfig.fromSystemProperties());
    }

    /**
     * Opens the named provider with the hardware environment and settings given (tests point
     * {@code environment} at temporary files).
     */
    public static VerbsContext open(String name, SoftConfig softConfig, DisniEnvironment environment, DisniConfig disniConfig) {
        String n = name == null ? "auto" : name.trim().toLowerCase(Locale.ROOT);
        switch (n) {
            case "auto": {
                DisniProbe probe = environment.probe();
                if (probe.hardwarePresent()) {
                    LOG.info("provider auto: RDMA devices {} and libdisni found, opening disni", probe.devices());
                    return DisniProvider.open(environment, disniConfig);
                }
                LOG.debug("provider auto: using shm, because {}", probe.summary());
                return SoftContext.openShm(softConfig);
            }
            case "soft":
            case "shm":
                return SoftContext.openShm(softConfig);
            case "loopback":
                return SoftContext.openLoopback(softConfig);
            case "disni":
                return DisniProvider.open(environment, disniConfig);
            default:
                throw new ProviderUnavailableException("unknown provider '" + name + "'; use one of " + NAMES);
        }
    }
}
