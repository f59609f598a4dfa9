package io.reactorrdma.verbs.ffm.testing;

import io.reactorrdma.verbs.ffm.provider.FfmSettings;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Points the {@code ffm} provider at the emulated rdma-core for the tests of one class: builds the library into a
 * directory of the test's and sets the provider's library paths and address as system properties, which every context
 * opened as {@code provider("ffm")} reads; {@link #clear()} takes them away again. Nothing global beyond those
 * properties changes.
 */
public final class FfmOnTheEmulation {

    private FfmOnTheEmulation() {
    }

    /** Builds the emulation into {@code dir} and points the provider at it; skips the caller where it cannot be built. */
    public static void use(Path dir) throws IOException, InterruptedException {
        Path so = EmulatedRdmaCore.build(dir);
        System.setProperty(FfmSettings.LIBIBVERBS, so.toString());
        System.setProperty(FfmSettings.LIBRDMACM, so.toString());
        System.setProperty(FfmSettings.ADDRESS, "127.0.0.1");
    }

    /** Takes the provider's properties away (the installed rdma-core and the first device again). */
    public static void clear() {
        System.clearProperty(FfmSettings.LIBIBVERBS);
        System.clearProperty(FfmSettings.LIBRDMACM);
        System.clearProperty(FfmSettings.ADDRESS);
    }
}
