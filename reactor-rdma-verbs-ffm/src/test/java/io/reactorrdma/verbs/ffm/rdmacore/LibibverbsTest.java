package io.reactorrdma.verbs.ffm.rdmacore;

import io.reactorrdma.verbs.ffm.testing.EmulatedRdmaCore;
import io.reactorrdma.verbs.ffm.abi.VerbsConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * Opening libibverbs through FFM, listing and opening devices and querying them, against the emulated libibverbs
 * built here with gcc ({@code src/test/c/emulated_rdma_core.c}, one build per scenario) and against the host's own
 * rdma-core where it has one.
 */
class LibibverbsTest {

    @TempDir
    Path dir;

    @Test
    void listsTheDevicesTheLibrarySees() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            Libibverbs lib = Libibverbs.open(Optional.of(emulated("-DDEVICES=2")), arena);
            assertThat(lib.deviceNames()).containsExactly("emu0", "emu1");
        }
    }

    @Test
    void noDeviceIsAClearError() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            Libibverbs lib = Libibverbs.open(Optional.of(emulated("-DDEVICES=0")), arena);
            assertThatThrownBy(lib::deviceNames).isInstanceOf(RdmaCoreUnavailableException.class)
                    .hasMessageContaining("no RDMA device").hasMessageContaining("shm provider");
        }
    }

    @Test
    void aKernelWithoutRdmaIsAClearError() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            Libibverbs lib = Libibverbs.open(Optional.of(emulated("-DNO_KERNEL")), arena);
            assertThatThrownBy(lib::deviceNames).isInstanceOf(RdmaCoreUnavailableException.class)
                    .hasMessageContaining("no RDMA support in this kernel").hasMessageContaining("ENOSYS");
        }
    }

    @Test
    void anOpenedDeviceSaysWhatItCanDoAndHowItsPortIs() throws Exception {
        try (Arena arena = Arena.ofConfined(); RdmaDevice device = Libibverbs.open(Optional.of(emulated()), arena).openDevice("emu0")) {
            DeviceCapabilities caps = device.capabilities();
            assertThat(caps).isEqualTo(new DeviceCapabilities("emu0", "emulated 1.0", 1L << 40, 1024, 8192, 30, 65535, 4096, 16,
                    16, 1));
            PortAttributes port = device.port(1);
            assertThat(port.isActive()).isTrue();
            assertThat(port.isRoce()).isTrue();
            assertThat(port.activeMtuBytes()).isEqualTo(1024);
            assertThat(port.gidTableLength()).isEqualTo(16);
        }
    }

    @Test
    void aDownInfinibandPortReadsAsSuch() throws Exception {
        try (Arena arena = Arena.ofConfined();
             RdmaDevice device = Libibverbs.open(Optional.of(emulated("-DPORT_DOWN", "-DINFINIBAND")), arena).openDevice("emu0")) {
            PortAttributes port = device.port(1);
            assertThat(port.isActive()).isFalse();
            assertThat(port.isRoce()).isFalse();
        }
    }

    @Test
    void aPortTheDeviceLacksIsAClearError() throws Exception {
        try (Arena arena = Arena.ofConfined(); RdmaDevice device = Libibverbs.open(Optional.of(emulated()), arena).openDevice("emu0")) {
            assertThatThrownBy(() -> device.port(2)).isInstanceOf(RdmaCoreUnavailableException.class)
                    .hasMessageContaining("ibv_query_port(emu0, 2) failed with EINVAL").hasMessageContaining("fewer ports");
            assertThatThrownBy(() -> device.port(0)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void anUnknownDeviceNameSaysWhichThereAre() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            Libibverbs lib = Libibverbs.open(Optional.of(emulated("-DDEVICES=2")), arena);
            assertThatThrownBy(() -> lib.openDevice("mlx5_0")).isInstanceOf(RdmaCoreUnavailableException.class)
                    .hasMessageContaining("no RDMA device named mlx5_0").hasMessageContaining("[emu0, emu1]");
        }
    }

    @Test
    void aDeviceThisUserMayNotOpenSaysWhatToDo() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            Libibverbs lib = Libibverbs.open(Optional.of(emulated("-DOPEN_EACCES")), arena);
            assertThatThrownBy(() -> lib.openDevice("emu0")).isInstanceOf(RdmaCoreUnavailableException.class)
                    .hasMessageContaining("EACCES (13)").hasMessageContaining("/dev/infiniband/uverbs");
        }
    }

    @Test
    void aClosedDeviceRefusesQueriesAndClosesOnce() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            RdmaDevice device = Libibverbs.open(Optional.of(emulated()), arena).openDevice("emu0");
            device.close();
            device.close();
            assertThatThrownBy(device::capabilities).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        }
    }

    @Test
    void registeredMemoryGetsDistinctKeysAndIsReleasedInOrder() throws Exception {
        try (Arena arena = Arena.ofConfined(); RdmaDevice device = Libibverbs.open(Optional.of(emulated()), arena).openDevice("emu0");
             RdmaPd pd = device.allocatePd()) {
            MemorySegment memory = arena.allocate(64 * 1024, 4096);
            int access = VerbsConstants.IBV_ACCESS_LOCAL_WRITE | VerbsConstants.IBV_ACCESS_REMOTE_WRITE
                    | VerbsConstants.IBV_ACCESS_REMOTE_READ;
            try (RdmaMr a = pd.register(memory, access); RdmaMr b = pd.register(memory.asSlice(0, 4096), access)) {
                assertThat(a.address()).isEqualTo(memory.address());
                assertThat(a.length()).isEqualTo(64 * 1024);
                assertThat(b.length()).isEqualTo(4096);
                assertThat(a.lkey()).isNotEqualTo(b.lkey());
                assertThat(a.rkey()).isNotEqualTo(b.rkey());
            }
        }
    }

    @Test
    void remoteWriteWithoutLocalWriteIsRefusedSayingWhy() throws Exception {
        try (Arena arena = Arena.ofConfined(); RdmaDevice device = Libibverbs.open(Optional.of(emulated()), arena).openDevice("emu0");
             RdmaPd pd = device.allocatePd()) {
            MemorySegment memory = arena.allocate(4096, 4096);
            assertThatThrownBy(() -> pd.register(memory, VerbsConstants.IBV_ACCESS_REMOTE_WRITE))
                    .isInstanceOf(RdmaCoreUnavailableException.class).hasMessageContaining("EINVAL")
                    .hasMessageContaining("IBV_ACCESS_LOCAL_WRITE");
        }
    }

    @Test
    void aRegistrationOverTheMemlockLimitNamesTheLimit() throws Exception {
        try (Arena arena = Arena.ofConfined();
             RdmaDevice device = Libibverbs.open(Optional.of(emulated("-DREG_ENOMEM")), arena).openDevice("emu0");
             RdmaPd pd = device.allocatePd()) {
            MemorySegment memory = arena.allocate(1 << 20, 4096);
            assertThatThrownBy(() -> pd.register(memory, VerbsConstants.IBV_ACCESS_LOCAL_WRITE))
                    .isInstanceOf(RdmaCoreUnavailableException.class).hasMessageContaining("ENOMEM (12)")
                    .hasMessageContaining("memlock").hasMessageContaining("LimitMEMLOCK");
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

    private Path emulated(String... defines) throws IOException, InterruptedException {
        return EmulatedRdmaCore.build(dir, defines);
    }
}
