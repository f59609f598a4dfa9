package io.reactorrdma.verbs.ffm.provider;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The ffm provider's settings, from system properties: which rdma-core libraries to load (by default the dynamic
 * linker finds {@code libibverbs.so.1} and {@code librdmacm.so.1}; tests point at the emulated ones, nothing global
 * changes), the IPv4 address whose RDMA device the context opens, and the inline threshold.
 *
 * @param libibverbs  {@value #LIBIBVERBS}: a path to load libibverbs from, or empty for the installed one
 * @param librdmacm   {@value #LIBRDMACM}: a path to load librdmacm from, or empty for the installed one
 * @param address     {@value #ADDRESS}: the IPv4 address of an RDMA interface, or null for the first found in sysfs
 * @param maxInline   {@value #MAX_INLINE}: bytes a send carries inline at most (asked of each queue pair; 0: never)
 */
public record FfmSettings(Optional<Path> libibverbs, Optional<Path> librdmacm, String address, int maxInline) {

    public static final String LIBIBVERBS = "reactor.rdma.ffm.libibverbs";
    public static final String LIBRDMACM = "reactor.rdma.ffm.librdmacm";
    public static final String ADDRESS = "reactor.rdma.ffm.address";
    public static final String MAX_INLINE = "reactor.rdma.ffm.max-inline";
    /** Inline bytes every current RoCE/InfiniBand NIC grants a queue pair (mlx5, irdma, bnxt_re, rxe give more). */
    public static final int DEFAULT_MAX_INLINE = 64;

    public FfmSettings {
        if (maxInline < 0 || maxInline > 1024) {
            throw new IllegalArgumentException(MAX_INLINE + " must be 0..1024, got " + maxInline);
        }
    }

    public static FfmSettings fromSystemProperties() {
        String inline = System.getProperty(MAX_INLINE);
        int maxInline;
        try {
            maxInline = inline == null || inline.isBlank() ? DEFAULT_MAX_INLINE : Integer.parseInt(inline.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(MAX_INLINE + " must be a number of bytes, got '" + inline + "'", e);
        }
        String address = System.getProperty(ADDRESS);
        return new FfmSettings(path(LIBIBVERBS), path(LIBRDMACM), address == null || address.isBlank() ? null : address.trim(),
                maxInline);
    }

    private static Optional<Path> path(String property) {
        String p = System.getProperty(property);
        return p == null || p.isBlank() ? Optional.empty() : Optional.of(Path.of(p.trim()));
    }
}
