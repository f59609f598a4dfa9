package io.reactorrdma.verbs.ffm.rdmacore;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * Opening libibverbs through FFM and listing devices, against stand-ins built here with gcc
 * ({@code src/test/c/fake_ibverbs.c}) and against the host's own rdma-core where it has one.
 */
class LibibverbsTest {

    private static final Path FAKE_SOURCE = Paths.get("src", "test", "c", "fake_ibverbs.c");

    @TempDir
    Path dir;

    @Test
    void listsTheDevicesTheLibrarySees() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            Libibverbs lib = Libibverbs.open(Optional.of(fake("-DDEVICES=2")), arena);
            assertThat(lib.deviceNames()).containsExactly("fake0", "fake1");
        }
    }

    @Test
    void noDeviceIsAClearError() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            Libibverbs lib = Libibverbs.open(Optional.of(fake("-DDEVICES=0")), arena);
            assertThatThrownBy(lib::deviceNames).isInstanceOf(RdmaCoreUnavailableException.class)
                    .hasMessageContaining("no RDMA device").hasMessageContaining("shm provider");
        }
    }

    @Test
    void aKernelWithoutRdmaIsAClearError() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            Libibverbs lib = Libibverbs.open(Optional.of(fake("-DNO_KERNEL")), arena);
            assertThatThrownBy(lib::deviceNames).isInstanceOf(RdmaCoreUnavailableException.class)
                    .hasMessageContaining("no RDMA support in this kernel").hasMessageContaining("ENOSYS");
        }
    }

    @Test
    void aMissingLibraryIsAClearError() {
        try (Arena arena = Arena.ofConfined()) {
            assertThatThrownBy(() -> Libibverbs.open(Optional.of(dir.resolve("libibverbs.so.1")), arena))
                    .isInstanceOf(RdmaCoreUnavailableException.class)
                    .hasMessageContaining("could not be loaded").hasMessageContaining("install rdma-core");
        }
    }

    @Test
    void theHostsOwnRdmaCoreAnswersOrSaysWhy() {
        assumeThat(Files.exists(Paths.get("/usr/lib/x86_64-linux-gnu/libibverbs.so.1"))
                || Files.exists(Paths.get("/usr/lib64/libibverbs.so.1"))).as("rdma-core installed on this host").isTrue();
        try (Arena arena = Arena.ofConfined()) {
            Libibverbs lib = Libibverbs.open(Optional.empty(), arena);
            if (Files.exists(Paths.get("/sys/class/infiniband_verbs"))) {
                try {
                    assertThat(lib.deviceNames()).isNotEmpty();
                } catch (RdmaCoreUnavailableException e) {
                    assertThat(e).hasMessageContaining("no RDMA device");
                }
            } else { // this project's build hosts: rdma-core installed, a kernel without RDMA
                assertThatThrownBy(lib::deviceNames).isInstanceOf(RdmaCoreUnavailableException.class)
                        .hasMessageContaining("no RDMA support in this kernel");
            }
        }
    }

    /** Builds the stand-in library with these defines; skips the test when gcc is missing. */
    private Path fake(String... defines) throws IOException, InterruptedException {
        Path so = dir.resolve("libibverbs-fake.so");
        List<String> command = new ArrayList<>(List.of("gcc", "-shared", "-fPIC", "-Wall", "-Werror", "-o", so.toString()));
        command.addAll(List.of(defines));
        command.add(FAKE_SOURCE.toString());
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException noGcc) {
            assumeThat(false).as("gcc on the PATH (" + noGcc.getMessage() + ")").isTrue();
            throw noGcc;
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("gcc: %s", out).isZero();
        return so;
    }
}
