package io.reactorrdma.perf.doctor.host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The host's files as the doctor reads them: every absolute host path ({@code /sys/class/infiniband},
 * {@code /proc/self/limits}) resolved under a root, {@code /} on a real host, a fake tree in tests ({@code --root}).
 * Reads never throw: a file that is missing or unreadable is an empty answer, and the check says so.
 */
public final class HostPaths {

    private final Path root;

    private HostPaths(Path root) {
        this.root = root;
    }

    /** The host itself. */
    public static HostPaths host() {
        return new HostPaths(Paths.get("/"));
    }

    /** A tree that stands in for the host: {@code /sys/...} is read from {@code root/sys/...}. */
    public static HostPaths under(Path root) {
        return new HostPaths(root.toAbsolutePath().normalize());
    }

    /** Where the host path {@code hostPath} (absolute, as on the host) lies under the root. */
    public Path resolve(String hostPath) {
        String relative = hostPath.replaceFirst("^/+", "");
        return relative.isEmpty() ? root : root.resolve(relative);
    }

    /** The host path of a file under the root, as the report shows it ({@code /sys/...}, whatever the root). */
    public String display(Path path) {
        Path relative = root.relativize(path.toAbsolutePath().normalize());
        return "/" + relative.toString().replace('\\', '/');
    }

    /** The text of a file, trimmed; empty when it is missing or cannot be read (sysfs answers EINVAL for unused GIDs). */
    public Optional<String> read(String hostPath) {
        try {
            return Optional.of(Files.readString(resolve(hostPath), StandardCharsets.UTF_8).trim());
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return Optional.empty();
        }
    }

    /** The bytes of a file; empty when it is missing or cannot be read. */
    public Optional<byte[]> readBytes(String hostPath) {
        try {
            return Optional.of(Files.readAllBytes(resolve(hostPath)));
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    /** The names in a directory, sorted (natural order: {@code 2} before {@code 10}); empty when it is missing or unreadable. */
    public List<String> list(String hostPath) {
        try (Stream<Path> entries = Files.list(resolve(hostPath))) {
            return entries.map(p -> p.getFileName().toString()).sorted(HostPaths::natural).toList();
        } catch (IOException | SecurityException e) {
            return List.of();
        }
    }

    /** Whether the host path exists (a link counts if its target does). */
    public boolean exists(String hostPath) {
        return Files.exists(resolve(hostPath));
    }

    /** Names with their digit runs compared as numbers: {@code uverbs2 < uverbs10}. */
    public static int natural(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            char ca = a.charAt(i);
            char cb = b.charAt(j);
            if (Character.isDigit(ca) && Character.isDigit(cb)) {
                int ei = i;
                while (ei < a.length() && Character.isDigit(a.charAt(ei))) {
                    ei++;
                }
                int ej = j;
                while (ej < b.length() && Character.isDigit(b.charAt(ej))) {
                    ej++;
                }
                String na = a.substring(i, ei).replaceFirst("^0+(?=.)", "");
                String nb = b.substring(j, ej).replaceFirst("^0+(?=.)", "");
                int c = na.length() != nb.length() ? Integer.compare(na.length(), nb.length()) : na.compareTo(nb);
                if (c != 0) {
                    return c;
                }
                i = ei;
                j = ej;
            } else {
                if (ca != cb) {
                    return Character.compare(ca, cb);
                }
                i++;
                j++;
            }
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}
