package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.MemoryRegion;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.ffm.rdmacore.Libibverbs;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaDevice;
import io.reactorrdma.verbs.ffm.testing.EmulatedRdmaCore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The SPI's protection domain over rdma-core, on the emulated library: allocation, registration, refusals, close. */
class FfmProtectionDomainTest {

    @TempDir
    Path dir;

    @Test
    void allocatedAndRegisteredMemoryHaveKeysAndBuffersAndCloseWithTheDomain() throws Exception {
        try (Arena arena = Arena.ofShared(); RdmaDevice device = open(arena)) {
            FfmProtectionDomain pd = new FfmProtectionDomain(device.allocatePd(), 1 << 30, gone -> { });
            MemoryRegion a = pd.allocate(64 * 1024, AccessFlags.ALL);
            assertThat(a.address() % 4096).as("page aligned").isZero();
            assertThat(a.length()).isEqualTo(64 * 1024);
            assertThat(a.buffer().capacity()).isEqualTo(64 * 1024);
            a.buffer().putLong(0, 42L);
            assertThat(a.access()).isEqualTo(AccessFlags.ALL);
            ByteBuffer direct = ByteBuffer.allocateDirect(8192);
            MemoryRegion b = pd.register(direct, AccessFlags.LOCAL_WRITE);
            assertThat(b.lkey()).isNotEqualTo(a.lkey());
            assertThat(b.length()).isEqualTo(8192);
            MemoryRegion c = pd.allocate(4096, AccessFlags.LOCAL_WRITE);
            c.close();
            assertThat(c.isValid()).isFalse();
            pd.close();
            assertThat(a.isValid()).isFalse();
            assertThat(b.isValid()).isFalse();
            assertThatThrownBy(() -> pd.allocate(4096, AccessFlags.ALL)).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void badRequestsAreRefusedSayingWhy() throws Exception {
        try (Arena arena = Arena.ofShared(); RdmaDevice device = open(arena)) {
            FfmProtectionDomain pd = new FfmProtectionDomain(device.allocatePd(), 1 << 20, gone -> { });
            assertThatThrownBy(() -> pd.allocate(2 << 20, AccessFlags.ALL)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("1..1048576");
            assertThatThrownBy(() -> pd.register(ByteBuffer.allocate(64), AccessFlags.ALL)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("direct");
            assertThatThrownBy(() -> pd.allocate(64, AccessFlags.REMOTE_WRITE)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("LOCAL_WRITE");
            pd.close();
        }
    }

    @Test
    void aRegistrationOverTheMemlockLimitIsAVerbsExceptionNamingIt() throws Exception {
        try (Arena arena = Arena.ofShared(); RdmaDevice device = open(arena, "-DREG_ENOMEM")) {
            FfmProtectionDomain pd = new FfmProtectionDomain(device.allocatePd(), 1 << 30, gone -> { });
            assertThatThrownBy(() -> pd.allocate(1 << 20, AccessFlags.ALL)).isInstanceOf(VerbsException.class)
                    .hasMessageContaining("registering 1048576 bytes").hasMessageContaining("memlock");
            pd.close();
        }
    }

    private RdmaDevice open(Arena arena, String... defines) throws Exception {
        return Libibverbs.open(Optional.of(EmulatedRdmaCore.build(dir, defines)), arena).openDevice("emu0");
    }
}
