package io.reactorrdma.memory;

import io.netty.util.internal.PlatformDependent;

/**
 * Registered buffers read and write their memory by address, through Netty's direct memory access
 * ({@code sun.misc.Unsafe}); Netty 4.2 turns that access off by default on Java 25 and later (unless the JVM
 * allows {@code sun.misc.Unsafe} memory access explicitly), and {@code -Dio.netty.noUnsafe=true} turns it off
 * anywhere. Every pool checks at creation, so a JVM
 * without it gets one clear error instead of a failure deep in the first buffer's use.
 */
final class DirectMemoryAccess {

    /** The JVM option that allows Unsafe memory access on Java 24+ (Netty then keeps its direct memory access on). */
    static final String ALLOW_OPTION = "--sun-misc-unsafe-memory-access=allow";
    /** The option that turns Netty's direct memory access on whatever else is set. */
    static final String ENABLE_OPTION = "-Dio.netty.noUnsafe=false";

    private DirectMemoryAccess() {
    }

    /** Throws, saying what to do, unless Netty's direct memory access is on in this JVM. */
    static void require() {
        if (!PlatformDependent.hasUnsafe()) {
            throw new IllegalStateException(unavailable(Runtime.version().feature(), PlatformDependent.getUnsafeUnavailabilityCause()));
        }
    }

    static String unavailable(int javaVersion, Throwable cause) {
        return "registered buffers need Netty's direct memory access (sun.misc.Unsafe), and Netty has it turned off in this JVM"
                + (cause == null ? "" : " (" + cause.getMessage() + ")") + ". "
                + (javaVersion >= 25
                ? "Netty turns it off by default on Java " + javaVersion + ": start the JVM with " + ALLOW_OPTION
                        + " (or " + ENABLE_OPTION + ")."
                : "Start the JVM without -Dio.netty.noUnsafe=true (or with " + ENABLE_OPTION + ").");
    }
}
