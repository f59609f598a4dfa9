package io.reactorrdma.verbs.disni;

import io.reactorrdma.verbs.ProviderUnavailableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DisniEnvironmentTest {

    @TempDir
    Path tmp;

    private DisniEnvironment env(boolean libraryLoads, boolean exported) {
        return DisniEnvironment.system()
                .withDevicesDir(tmp.resolve("infiniband"))
                .withLimitsFile(tmp.resolve("limits"))
                .withLibraryLoader(name -> {
                    assertThat(name).isEqualTo("disni");
                    if (!libraryLoads) {
                        throw new UnsatisfiedLinkError("no disni in java.library.path: /nowhere");
                    }
                })
                .withExportCheck(() -> exported)
                .withSlf4jCheck(() -> true)
                .withMinMemlock(64L << 20);
    }

    private void device(String name) throws IOException {
        Files.createDirectories(tmp.resolve("infiniband").resolve(name));
    }

    private void limits(String memlockLine) throws IOException {
        Files.writeString(tmp.resolve("limits"), "Limit                     Soft Limit           Hard Limit           Units     \n"
                + "Max cpu time              unlimited            unlimited            seconds   \n"
                + memlockLine + "\n"
                + "Max open files            1024                 4096                 files     \n");
    }

    @Test
    void everythingPresentIsUsable() throws IOException {
        device("mlx5_1");
        device("mlx5_0");
        limits("Max locked memory         unlimited            unlimited            bytes     ");
        DisniProbe p = env(true, true).probe();
        assertThat(p.problems()).isEmpty();
        assertThat(p.hardwarePresent()).isTrue();
        assertThat(p.devices()).containsExactly("mlx5_0", "mlx5_1");
        p.requireUsable();
    }

    @Test
    void aMissingLibrarySaysHowToBuildAndInstallIt() throws IOException {
        device("mlx5_0");
        DisniProbe p = env(false, true).probe();
        assertThat(p.hardwarePresent()).isFalse();
        assertThat(p.libraryProblem()).contains("libdisni did not load", "no disni in java.library.path", "libibverbs-dev",
                "librdmacm-dev", "autoprepare.sh", "configure", "make install", "-Djava.library.path");
    }

    @Test
    void noDeviceDirectoryOrAnEmptyOneIsReported() throws IOException {
        DisniProbe missing = env(true, true).probe();
        assertThat(missing.hardwarePresent()).isFalse();
        assertThat(missing.deviceProblem()).contains("no RDMA device", "does not exist", "rdma-core", "rdma link add");
        Files.createDirectories(tmp.resolve("infiniband"));
        DisniProbe empty = env(true, true).probe();
        assertThat(empty.deviceProblem()).contains("is empty");
        assertThat(empty.devices()).isEmpty();
    }

    @Test
    void aLowMemlockLimitSaysUlimit() throws IOException {
        device("mlx5_0");
        limits("Max locked memory         65536                65536                bytes     ");
        DisniProbe p = env(true, true).probe();
        assertThat(p.hardwarePresent()).as("memlock is a JVM setting, not hardware").isTrue();
        assertThat(p.memlockProblem()).contains("64 KiB", "Max locked memory", "ulimit -l", "LimitMEMLOCK", "64 MiB");
        assertThatThrownBy(p::requireUsable).isInstanceOf(ProviderUnavailableException.class).hasMessageContaining("ulimit -l");
    }

    @Test
    void enoughOrUnknownMemlockIsFine() throws IOException {
        device("mlx5_0");
        limits("Max locked memory         134217728            134217728            bytes     ");
        assertThat(env(true, true).probe().memlockProblem()).isNull();
        Files.delete(tmp.resolve("limits"));
        assertThat(env(true, true).probe().memlockProblem()).as("no /proc: nothing to say").isNull();
    }

    @Test
    void memlockLinesAreParsed() throws IOException {
        limits("Max locked memory         8388608              8388608              bytes     ");
        assertThat(DisniEnvironment.readMemlockSoftLimit(tmp.resolve("limits"))).isEqualTo(8388608L);
        limits("Max locked memory         unlimited            unlimited            bytes     ");
        assertThat(DisniEnvironment.readMemlockSoftLimit(tmp.resolve("limits"))).isEqualTo(-1L);
        limits("Max processes             100                  100                  processes ");
        assertThat(DisniEnvironment.readMemlockSoftLimit(tmp.resolve("limits"))).isNull();
    }

    @Test
    void aMissingExportNamesTheFlag() throws IOException {
        device("mlx5_0");
        DisniProbe p = env(true, false).probe();
        assertThat(p.exportsProblem()).contains("--add-exports java.base/sun.nio.ch=ALL-UNNAMED", "sun.nio.ch.DirectBuffer");
        assertThat(p.hardwarePresent()).isTrue();
    }

    @Test
    void missingSlf4jSaysWhatToAdd() throws IOException {
        device("mlx5_0");
        DisniProbe p = env(true, true).withSlf4jCheck(() -> false).probe();
        assertThat(p.hardwarePresent()).isTrue();
        assertThat(p.loggingProblem()).contains("org.slf4j:slf4j-api", "binding");
        assertThat(p.problems()).hasSize(1);
    }

    @Test
    void everyProblemIsListedWithTheSoftAlternative() {
        DisniProbe p = env(false, false).probe();
        assertThat(p.problems()).hasSize(3);
        assertThatThrownBy(p::requireUsable).isInstanceOf(ProviderUnavailableException.class)
                .hasMessageContaining("1. libdisni").hasMessageContaining("2. no RDMA device")
                .hasMessageContaining("3. the JVM does not export").hasMessageContaining("'shm'").hasMessageContaining("HARDWARE.md");
    }

    @Test
    void theExportCheckSeesThisJvm() {
        // Surefire runs without --add-exports unless the disni argLine is given: either way the check must agree with the JVM.
        boolean exported = Object.class.getModule().isExported("sun.nio.ch", getClass().getModule());
        assertThat(DisniEnvironment.sunNioChExportedHere()).isEqualTo(exported);
    }
}
