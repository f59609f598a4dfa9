package io.reactorrdma.memory;

import io.netty.util.internal.PlatformDependent;

/**
 * Registered buffers read and write their memory by address, through Netty's direct memory access
 * ({@code sun.misc.Unsafe}). Netty 4.2 turns that access off by default on Java 25 and later (unless the JVM allows
 * {@code sun.misc.Unsafe} memory access explicitly, {@code --sun-misc-unsafe-memory-access=allow}, a JDK 23+ option),
 * where the JVM restricts it ({@code --sun-misc-unsafe-memory-access} other than {@code allow}), and where
 * {@code -Dio.netty.noUnsafe=true} says so. Every pool checks at creation, so a JVM without it gets one clear error,
 * with the advice for the reason Netty gives, instead of a failure deep in the first buffer's use.
 */
final class DirectMemoryAccess {

    /** The JVM option that allows Unsafe memory access (JDK 23+); Netty then keeps its direct memory access on. */
    static final String ALLOW_OPTION = "--sun-misc-unsafe-memory-access=allow";

    private DirectMemoryAccess() {
    }

    /** Throws, saying what to do, unless Netty's direct memory access is on in this JVM. */
    static void require() {
        if (!PlatformDependent.hasUnsafe()) {
            throw new IllegalStateException(unavailable(PlatformDependent.getUnsafeUnavailabilityCause()));
        }
    }

    /** The error for Netty's {@code cause}, whose message names the reason ("io.netty.noUnsafe=true by default on Java 25+"). */
    static String unavailable(Throwable cause) {
        String why = cause == null || cause.getMessage() == null ? "" : cause.getMessage();
        String advice;
        if (why.contains("by default")) {
            advice = "Netty turns it off by default on this Java: start the JVM with " + ALLOW_OPTION
                    + " (or -Dio.netty.noUnsafe=false).";
        } else if (why.contains("sun-misc-unsafe-memory-access")) {
            advice = "The JVM restricts sun.misc.Unsafe memory access: start it with " + ALLOW_OPTION + ".";
        } else if (why.contains("io.netty.noUnsafe")) {
            advice = "-Dio.netty.noUnsafe is set: remove it (or set -Dio.netty.noUnsafe=false).";
        } else {
            advice = "Start the JVM with " + ALLOW_OPTION + " (JDK 23+) and without -Dio.netty.noUnsafe=true or"
                    + " -Dio.netty.tryUnsafe=false.";
        }
        return "registered buffers need Netty's direct memory access (sun.misc.Unsafe), and Netty has it turned off in this JVM"
                + (why.isEmpty() ? "" : " (" + why + ")") + ". " + advice;
    }
}
