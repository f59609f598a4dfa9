package io.reactorrdma.perf.doctor.host;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Where the dynamic linker finds a shared library: {@code LD_LIBRARY_PATH}, the paths {@code /etc/ld.so.cache}
 * names, and the usual library directories (with the Debian multiarch one for this architecture).
 */
public final class LibraryDirs {

    public static final String LD_SO_CACHE = "/etc/ld.so.cache";

    private LibraryDirs() {
    }

    /** The first place {@code name} ({@code libibverbs.so.1}) is found, as a host path; empty when none has it. */
    public static Optional<String> find(Host host, String name) {
        HostPaths paths = host.paths();
        for (String dir : host.jvm().ldLibraryPath()) {
            if (Files.isRegularFile(paths.resolve(dir + "/" + name))) {
                return Optional.of(dir.replaceFirst("/+$", "") + "/" + name);
            }
        }
        Optional<String> cached = fromCache(paths, name);
        if (cached.isPresent()) {
            return cached;
        }
        for (String dir : usual(host.jvm().arch())) {
            if (Files.isRegularFile(paths.resolve(dir + "/" + name))) {
                return Optional.of(dir + "/" + name);
            }
        }
        return Optional.empty();
    }

    /** The library directories searched when the cache does not name a library. */
    public static List<String> usual(String arch) {
        Set<String> dirs = new LinkedHashSet<>();
        String triplet = switch (arch) {
            case "amd64", "x86_64" -> "x86_64-linux-gnu";
            case "aarch64", "arm64" -> "aarch64-linux-gnu";
            case "ppc64le" -> "powerpc64le-linux-gnu";
            case "s390x" -> "s390x-linux-gnu";
            default -> "";
        };
        if (!triplet.isEmpty()) {
            dirs.add("/usr/lib/" + triplet);
            dirs.add("/lib/" + triplet);
        }
        dirs.addAll(List.of("/usr/lib64", "/lib64", "/usr/lib", "/lib", "/usr/local/lib64", "/usr/local/lib"));
        return new ArrayList<>(dirs);
    }

    /** The path ld.so.cache gives for {@code name}: its string table holds every library's full path. */
    private static Optional<String> fromCache(HostPaths paths, String name) {
        Optional<byte[]> cache = paths.readBytes(LD_SO_CACHE);
        if (cache.isEmpty()) {
            return Optional.empty();
        }
        String suffix = "/" + name;
        for (String s : new String(cache.get(), StandardCharsets.ISO_8859_1).split("\0")) {
            int slash = s.indexOf('/');
            if (slash >= 0 && s.endsWith(suffix)) {
                String path = s.substring(slash);
                if (Files.isRegularFile(paths.resolve(path)) || Files.isSymbolicLink(paths.resolve(path))) {
                    return Optional.of(path);
                }
            }
        }
        return Optional.empty();
    }
}
