package io.reactorrdma.verbs;

import io.reactorrdma.verbs.soft.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;

import java.util.List;
import java.util.Locale;

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
 */
public final class Providers {

    /** The names {@link #open(String)} accepts. */
    public static final List<String> NAMES = List.of("auto", "soft", "shm", "loopback", "disni");

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
        String n = name == null ? "auto" : name.trim().toLowerCase(Locale.ROOT);
        switch (n) {
            case "auto": // the DiSNI provider is not in this build, so auto means the soft provider's default fabric
            case "soft":
            case "shm":
                return SoftContext.openShm(softConfig);
            case "loopback":
                return SoftContext.openLoopback(softConfig);
            case "disni":
                throw new ProviderUnavailableException("provider 'disni' is unavailable: " + disniUnavailableReason());
            default:
                throw new ProviderUnavailableException("unknown provider '" + name + "'; use one of " + NAMES);
        }
    }

    /** Why the hardware provider cannot be used in this build. */
    static String disniUnavailableReason() {
        return "this build has no DiSNI hardware provider yet (io.reactorrdma.verbs.disni); "
                + "use 'shm' across processes or 'loopback' within one JVM";
    }
}
