package io.reactorrdma.verbs.ffm.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * Builds the emulated rdma-core ({@code src/test/c/emulated_rdma_core.c}: libibverbs and librdmacm in one library) with
 * gcc, one build per scenario.
 */
public final class EmulatedRdmaCore {

    private static final Path SOURCE = Paths.get("src", "test", "c", "emulated_rdma_core.c");

    private EmulatedRdmaCore() {
    }

    /**
     * Skips the calling test unless rdma-core's headers (libibverbs-dev and librdmacm-dev) and gcc are here: what the
     * C sources of these tests are compiled with.
     */
    public static void assumeBuildable() {
        assumeThat(Files.exists(Paths.get("/usr/include/infiniband/verbs.h"))
                && Files.exists(Paths.get("/usr/include/rdma/rdma_cma.h")))
                .as("rdma-core's headers: install libibverbs-dev and librdmacm-dev").isTrue();
        boolean gcc = false;
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            gcc |= !dir.isEmpty() && Files.isExecutable(Paths.get(dir, "gcc"));
        }
        assumeThat(gcc).as("gcc on the PATH").isTrue();
    }

    /** Builds it into {@code dir} with these defines; skips the calling test when gcc or rdma-core's headers are missing. */
    public static Path build(Path dir, String... defines) throws IOException, InterruptedException {
        assumeBuildable();
        Path so = dir.resolve("libibverbs-emulated-" + String.join("", defines).replaceAll("[^A-Za-z0-9]", "") + ".so");
        List<String> command = new ArrayList<>(List.of("gcc", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror", "-o",
                so.toString()));
        command.addAll(List.of(defines));
        command.add(SOURCE.toString());
        command.add("-lpthread");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("gcc: %s", out).isZero();
        return so;
    }
}
