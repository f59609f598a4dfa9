package io.reactorrdma.verbs.provider;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.ProviderUnavailableException;
import io.reactorrdma.verbs.VerbsContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProvidersTest {

    static final Path DIR = Paths.get("/dev/shm", "reactor-rdma-providers-" + ProcessHandle.current().pid());
    static final SoftConfig CONFIG = SoftConfig.defaults().withShmDirectory(DIR);

    @AfterAll
    static void cleanup() throws IOException {
        deleteTree(DIR);
    }

    static void deleteTree(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> w = Files.walk(dir)) {
                for (Path p : w.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    @Test
    void autoAndSoftFallBackToShmWithoutHardware() {
        for (String name : new String[]{"auto", "soft", "shm", " SHM ", null}) {
            try (VerbsContext c = Providers.open(name, CONFIG)) {
                assertThat(c.providerName()).as("provider for %s", name).isEqualTo("shm");
                assertThat(c.deviceName()).isEqualTo("soft-shm0");
            }
        }
    }

    @Test
    void loopbackIsInJvm() {
        try (VerbsContext c = Providers.open("loopback", CONFIG)) {
            assertThat(c.providerName()).isEqualTo("loopback");
            assertThat(c.capabilities().canRegisterCallerMemory()).isTrue();
        }
    }

    @Test
    void unavailableOrUnknownProvidersSayWhy() {
        // this host has no RDMA device and no libdisni (a host with them runs DisniConformanceTest instead)
        org.junit.jupiter.api.Assumptions.assumeFalse(io.reactorrdma.verbs.disni.DisniEnvironment.system().probe().hardwarePresent(),
                "RDMA hardware present");
        assertThatThrownBy(() -> Providers.open("disni", CONFIG)).isInstanceOf(ProviderUnavailableException.class)
                .hasMessageContaining("disni").hasMessageContaining("shm");
        assertThatThrownBy(() -> Providers.open("ib0", CONFIG)).isInstanceOf(ProviderUnavailableException.class)
                .hasMessageContaining("auto, soft, shm, loopback, disni");
        assertThatThrownBy(() -> Providers.open("ffm", CONFIG)).as("reactor-rdma's own tests run without the ffm module")
                .isInstanceOf(ProviderUnavailableException.class).hasMessageContaining("reactor-rdma-verbs-ffm (built with a JDK 22+)");
    }

    @Test
    void anUnusableShmDirectoryIsAClearError() {
        SoftConfig bad = SoftConfig.defaults().withShmDirectory(Paths.get("/nonexistent-dir-for-test/x"));
        assertThatThrownBy(() -> Providers.open("shm", bad)).isInstanceOf(ProviderUnavailableException.class)
                .hasMessageContaining("reactor.rdma.soft.shmDir");
    }

    @Test
    void shmCannotRegisterCallerMemoryAndSaysWhatToUse() {
        try (VerbsContext c = Providers.open("shm", CONFIG)) {
            assertThat(c.capabilities().canRegisterCallerMemory()).isFalse();
            ProtectionDomain pd = c.allocPd();
            assertThatThrownBy(() -> pd.register(java.nio.ByteBuffer.allocateDirect(64), AccessFlags.LOCAL_WRITE))
                    .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("ProtectionDomain.allocate");
        }
    }

    @Test
    void loopbackRegistersCallerMemory() {
        try (VerbsContext c = Providers.open("loopback", CONFIG)) {
            java.nio.ByteBuffer mine = java.nio.ByteBuffer.allocateDirect(128);
            MemoryRegion mr = c.allocPd().register(mine, AccessFlags.LOCAL_WRITE);
            mr.buffer().put(5, (byte) 42);
            assertThat(mine.get(5)).isEqualTo((byte) 42);
            assertThat(mr.length()).isEqualTo(128);
        }
    }
}
