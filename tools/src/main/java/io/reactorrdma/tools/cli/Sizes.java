package io.reactorrdma.tools.cli;

import java.util.Locale;

/** Byte sizes on a command line: a whole number with an optional binary suffix k, m or g ({@code 64k} = 65536, {@code 1m}). */
public final class Sizes {

    private Sizes() {
    }

    /**
     * The bytes {@code text} names, 1 .. {@code max}.
     *
     * @param option the option's name, for the message ({@code --window})
     * @throws UsageException saying what is wrong and what to write instead
     */
    public static long parse(String option, String text, long max) {
        String v = text.trim().toLowerCase(Locale.ROOT);
        long unit = 1;
        char last = v.isEmpty() ? ' ' : v.charAt(v.length() - 1);
        if (last == 'k' || last == 'm' || last == 'g') {
            unit = last == 'k' ? 1L << 10 : last == 'm' ? 1L << 20 : 1L << 30;
            v = v.substring(0, v.length() - 1);
        }
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new UsageException("bad " + option + " size '" + text + "': use bytes with an optional binary suffix (64k = 65536, 1m)");
        }
        if (n < 1 || n > max / unit) {
            throw new UsageException("bad " + option + " size '" + text + "': must be 1 byte .. " + format(max));
        }
        return n * unit;
    }

    /** {@code bytes} in the largest binary unit that divides it: {@code 64k}, {@code 1m}, {@code 1g}, {@code 1500}. */
    public static String format(long bytes) {
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
            return bytes / (1L << 30) + "g";
        }
        if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) {
            return bytes / (1L << 20) + "m";
        }
        if (bytes >= 1L << 10 && bytes % (1L << 10) == 0) {
            return bytes / (1L << 10) + "k";
        }
        return Long.toString(bytes);
    }
}
