package io.reactorrdma.verbs.ffm.testing;

import io.reactorrdma.verbs.ffm.provider.FfmSettings;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Points the {@code ffm} provider at the emulated rdma-core for the tests of one class
 * ({@code @ExtendWith(FfmOnTheEmulation.class)}): builds the library into a directory of its own and sets the
 * provider's library paths and address as system properties, which every context opened as {@code provider("ffm")}
 * reads; after the class they are taken away and the directory deleted. Nothing global beyond those properties
 * changes. Skips the class where the library cannot be built (no gcc or no rdma-core headers).
 */
public final class FfmOnTheEmulation implements BeforeAllCallback, AfterAllCallback {

    private Path dir;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        dir = Files.createTempDirectory("ffm-emulation");
        Path so = EmulatedRdmaCore.build(dir);
        System.setProperty(FfmSettings.LIBIBVERBS, so.toString());
        System.setProperty(FfmSettings.LIBRDMACM, so.toString());
        System.setProperty(FfmSettings.ADDRESS, "127.0.0.1");
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        System.clearProperty(FfmSettings.LIBIBVERBS);
        System.clearProperty(FfmSettings.LIBRDMACM);
        System.clearProperty(FfmSettings.ADDRESS);
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
