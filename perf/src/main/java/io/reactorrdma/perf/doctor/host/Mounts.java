package io.reactorrdma.perf.doctor.host;

import java.util.Optional;

/** The file-system type of a host path, from {@code /proc/mounts} (the longest mount point above it). */
public final class Mounts {

    public static final String MOUNTS = "/proc/mounts";

    private Mounts() {
    }

    /** The type ({@code tmpfs}, {@code ext4}) of the mount holding {@code hostPath}; empty when /proc/mounts is unreadable. */
    public static Optional<String> typeOf(HostPaths paths, String hostPath) {
        Optional<String> mounts = paths.read(MOUNTS);
        if (mounts.isEmpty()) {
            return Optional.empty();
        }
        String best = null;
        String type = null;
        for (String line : mounts.get().split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 3) {
                continue;
            }
            String point = f[1].replace("\\040", " ");
            boolean above = point.equals("/") || hostPath.equals(point) || hostPath.startsWith(point + "/");
            if (above && (best == null || point.length() >= best.length())) {
                best = point;
                type = f[2];
            }
        }
        return Optional.ofNullable(type);
    }
}
