package io.reactorrdma.incast.sweep;

import java.util.Locale;

/**
 * One arm of a sweep: what the fabric and the engines run.
 *
 * @param kind         PFC only, DCQCN + PFC (no window), or DCQCN + PFC + the send window
 * @param windowBytes  the send window per engine, bytes ({@link Kind#WINDOW} only; {@link #NO_WINDOW} otherwise)
 */
public record Arm(Kind kind, long windowBytes) {

    /** The window of an arm without one. */
    public static final long NO_WINDOW = -1;

    /** What an arm turns on. */
    public enum Kind {
        /** PFC only: no DCQCN, no send window. */
        PFC("pfc"),
        /** DCQCN + PFC, no send window (the sweep's "off"). */
        DCQCN("dcqcn"),
        /** DCQCN + PFC + the engines' send window. */
        WINDOW("window");

        private final String id;

        Kind(String id) {
            this.id = id;
        }

        /** The name on the command line ({@code --arms}). */
        public String id() {
            return id;
        }
    }

    /** Validates: a window arm has a positive window, the others none. */
    public Arm {
        if (kind == null) {
            throw new IllegalArgumentException("an arm needs a kind");
        }
        if (kind == Kind.WINDOW ? windowBytes <= 0 : windowBytes != NO_WINDOW) {
            throw new IllegalArgumentException(kind.id() + " arm with window " + windowBytes
                    + ": a window arm needs a positive window, the others none (" + NO_WINDOW + ")");
        }
    }

    /** The PFC-only arm. */
    public static Arm pfc() {
        return new Arm(Kind.PFC, NO_WINDOW);
    }

    /** The DCQCN + PFC arm without a window. */
    public static Arm dcqcn() {
        return new Arm(Kind.DCQCN, NO_WINDOW);
    }

    /** The DCQCN + PFC arm with send window {@code bytes}. */
    public static Arm window(long bytes) {
        return new Arm(Kind.WINDOW, bytes);
    }

    /** Whether DCQCN runs. */
    public boolean runsDcqcn() {
        return kind != Kind.PFC;
    }

    /** Whether the engines bound their bytes in flight. */
    public boolean windowed() {
        return kind == Kind.WINDOW;
    }

    /** Whether the recommendation may pick this arm: the DCQCN arms, with a window or without (off). */
    public boolean isWindowCandidate() {
        return kind != Kind.PFC;
    }

    /** Orders windows for the recommendation's last tie-break: larger is less restrictive, off the largest. */
    long windowOrder() {
        return kind == Kind.WINDOW ? windowBytes : Long.MAX_VALUE;
    }

    /** The arm's name in tables, CSV and progress: {@code pfc}, {@code dcqcn}, {@code dcqcn+w64k}. */
    public String label() {
        return kind == Kind.WINDOW ? "dcqcn+w" + size(windowBytes) : kind.id();
    }

    /** The window as a value of {@code --window}: {@code 64k}, or {@code off}; {@code -} for the PFC-only arm. */
    public String windowLabel() {
        return switch (kind) {
            case WINDOW -> size(windowBytes);
            case DCQCN -> "off";
            case PFC -> "-";
        };
    }

    /** Bytes with the largest binary suffix that divides them: {@code 65536} → {@code 64k}. */
    public static String size(long bytes) {
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + "g";
        }
        if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + "m";
        }
        if (bytes >= 1L << 10 && bytes % (1L << 10) == 0) {
            return (bytes >> 10) + "k";
        }
        return Long.toString(bytes);
    }

    @Override
    public String toString() {
        return label().toLowerCase(Locale.ROOT);
    }
}
