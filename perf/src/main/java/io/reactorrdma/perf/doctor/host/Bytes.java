package io.reactorrdma.perf.doctor.host;

import java.util.Locale;

/** Byte counts for people: {@code 64 MiB}, {@code 1.5 GiB}, {@code 512 KiB}. */
public final class Bytes {

    private Bytes() {
    }

    public static String shown(long bytes) {
        if (bytes >= 1L << 30) {
            return unit(bytes, 1L << 30, "GiB");
        }
        if (bytes >= 1L << 20) {
            return unit(bytes, 1L << 20, "MiB");
        }
        if (bytes >= 1L << 10) {
            return unit(bytes, 1L << 10, "KiB");
        }
        return bytes + " bytes";
    }

    private static String unit(long bytes, long unit, String name) {
        return bytes % unit == 0 ? bytes / unit + " " + name : String.format(Locale.ROOT, "%.1f %s", (double) bytes / unit, name);
    }
}
