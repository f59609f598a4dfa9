package io.reactorrdma.perf.doctor.host;

import java.util.Optional;

/**
 * The "Max locked memory" line of {@code /proc/self/limits}: the soft and the hard limit in bytes,
 * {@link Long#MAX_VALUE} for {@code unlimited}.
 *
 * @param soft what the process may lock now ({@code ulimit -l}, in KiB there)
 * @param hard what a non-root process may raise the soft limit to
 */
public record MemlockLimit(long soft, long hard) {

    public static final String LIMITS = "/proc/self/limits";
    public static final long UNLIMITED = Long.MAX_VALUE;

    /** The limits of the process that reads them; empty when the file or its line is missing or unreadable. */
    public static Optional<MemlockLimit> read(HostPaths paths) {
        return paths.read(LIMITS).flatMap(MemlockLimit::parse);
    }

    /** The limit from the text of a limits file. */
    public static Optional<MemlockLimit> parse(String limits) {
        for (String line : limits.split("\n")) {
            if (line.startsWith("Max locked memory")) {
                String[] f = line.substring("Max locked memory".length()).trim().split("\\s+");
                if (f.length >= 2) {
                    try {
                        return Optional.of(new MemlockLimit(value(f[0]), value(f[1])));
                    } catch (NumberFormatException e) {
                        return Optional.empty();
                    }
                }
            }
        }
        return Optional.empty();
    }

    private static long value(String s) {
        return s.equals("unlimited") ? UNLIMITED : Long.parseLong(s);
    }

    /** A limit as people write it: {@code unlimited}, {@code 8 MiB}. */
    public static String shown(long bytes) {
        return bytes == UNLIMITED ? "unlimited" : Bytes.shown(bytes);
    }
}
