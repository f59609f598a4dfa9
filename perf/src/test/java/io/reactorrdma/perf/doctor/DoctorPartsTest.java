package io.reactorrdma.perf.doctor;

import io.reactorrdma.perf.doctor.checks.Finding;
import io.reactorrdma.perf.doctor.checks.Fixes;
import io.reactorrdma.perf.doctor.checks.PortsCheck;
import io.reactorrdma.perf.doctor.checks.Provider;
import io.reactorrdma.perf.doctor.checks.Status;
import io.reactorrdma.perf.doctor.host.Bytes;
import io.reactorrdma.perf.doctor.host.Gid;
import io.reactorrdma.perf.doctor.host.HostPaths;
import io.reactorrdma.perf.doctor.host.JvmFacts;
import io.reactorrdma.perf.doctor.host.MemlockLimit;
import io.reactorrdma.perf.doctor.host.PoolNeed;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The doctor's small parts: the limits file, GIDs, the RoCE MTU, byte counts, the pools' need, host paths. */
class DoctorPartsTest {

    @TempDir
    Path root;

    @Test
    void memlockLimitsAreReadFromTheLimitsFile() {
        assertThat(MemlockLimit.parse("Max cpu time              unlimited            unlimited            seconds\n"
                + "Max locked memory         8388608              16777216             bytes     \n"))
                .contains(new MemlockLimit(8L << 20, 16L << 20));
        assertThat(MemlockLimit.parse("Max locked memory         unlimited            unlimited            bytes\n"))
                .contains(new MemlockLimit(MemlockLimit.UNLIMITED, MemlockLimit.UNLIMITED));
        assertThat(MemlockLimit.parse("Max open files 1024 1024 files\n")).isEmpty();
        assertThat(MemlockLimit.shown(MemlockLimit.UNLIMITED)).isEqualTo("unlimited");
    }

    @Test
    void gidsShowTheirIpv4AddressAndType() {
        Gid v2 = new Gid(3, FakeHost.V2_IPV4, "RoCE v2", "eth0");
        assertThat(v2.isIpv4()).isTrue();
        assertThat(v2.isRoceV2()).isTrue();
        assertThat(v2.shown()).isEqualTo("10.0.0.1");
        Gid linkLocal = new Gid(0, FakeHost.V1_LINK_LOCAL, "IB/RoCE v1", "eth0");
        assertThat(linkLocal.isIpv4()).isFalse();
        assertThat(linkLocal.isRoceV2()).isFalse();
        assertThat(linkLocal.shown()).isEqualTo(FakeHost.V1_LINK_LOCAL);
        assertThat(new Gid(4, FakeHost.ZERO, "", "").isZero()).isTrue();
    }

    @Test
    void theRoceMtuIsTheLargestIbMtuTheEthernetMtuHolds() {
        assertThat(PortsCheck.ibMtu(1500)).isEqualTo(1024);
        assertThat(PortsCheck.ibMtu(4200)).isEqualTo(4096);
        assertThat(PortsCheck.ibMtu(9000)).isEqualTo(4096);
        assertThat(PortsCheck.ibMtu(2200)).isEqualTo(2048);
    }

    @Test
    void bytesAreShownInBinaryUnits() {
        assertThat(Bytes.shown(64L << 20)).isEqualTo("64 MiB");
        assertThat(Bytes.shown(2560L << 10)).isEqualTo("2.5 MiB");
        assertThat(Bytes.shown(512L << 10)).isEqualTo("512 KiB");
        assertThat(Bytes.shown(100)).isEqualTo("100 bytes");
    }

    @Test
    void thePoolsNeedComesFromTheConfigurationDefaults() {
        PoolNeed need = PoolNeed.defaults();
        assertThat(need.pool()).isEqualTo(20L << 20);
        assertThat(need.perClient()).isEqualTo(6L << 20);
        assertThat(need.perServer()).isEqualTo(2560L << 10);
        assertThat(need.largeMessages()).isEqualTo(64L << 20);
        assertThat(need.oneConnection()).isEqualTo(26L << 20);
    }

    @Test
    void hostPathsResolveUnderTheRootAndShowHostPaths() {
        HostPaths paths = HostPaths.under(root);
        assertThat(paths.resolve("/sys/class/infiniband")).isEqualTo(root.toAbsolutePath().resolve("sys/class/infiniband"));
        assertThat(paths.display(paths.resolve("/dev/shm"))).isEqualTo("/dev/shm");
        assertThat(paths.read("/no/such/file")).isEmpty();
        assertThat(paths.list("/no/such/dir")).isEmpty();
        List<String> names = new ArrayList<>(List.of("uverbs10", "uverbs2", "rdma_cm", "uverbs1"));
        names.sort(HostPaths::natural);
        assertThat(names).containsExactly("rdma_cm", "uverbs1", "uverbs2", "uverbs10");
    }

    @Test
    void aFindingBlocksProvidersWhenItFailsOrWarnsOfOneProviderNeverWhenOk() {
        Finding fail = Finding.fail("memlock", "8 MiB", "raise it", Fixes.HARDWARE);
        assertThat(fail.blocks()).containsExactlyInAnyOrder(Provider.DISNI, Provider.FFM);
        assertThat(fail.asWarning().status()).isEqualTo(Status.WARN);
        assertThat(fail.asWarning().blocks()).isEmpty();
        assertThat(fail.asWarning().fix()).isEqualTo("raise it");
        Finding jdk = Finding.warn("jdk", "17: ffm needs JDK 22+", "run on 22", java.util.Set.of(Provider.FFM));
        assertThat(jdk.blocks()).containsExactly(Provider.FFM);
        assertThat(jdk.asWarning()).isSameAs(jdk);
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> new Finding(Status.OK, "jdk", "25", null, java.util.Set.of(Provider.FFM)))
                .withMessageContaining("an OK line blocks no provider");
    }

    @Test
    void nettysDirectMemoryAccessIsJudgedAsNettyDecides() {
        assertThat(JvmFacts.directMemoryAccess(17, null, null)).isTrue();
        assertThat(JvmFacts.directMemoryAccess(24, null, null)).isTrue();
        assertThat(JvmFacts.directMemoryAccess(25, null, null)).as("off by default on 25+").isFalse();
        assertThat(JvmFacts.directMemoryAccess(25, null, "allow")).isTrue();
        assertThat(JvmFacts.directMemoryAccess(25, "false", null)).isTrue();
        assertThat(JvmFacts.directMemoryAccess(25, "false", "deny")).as("the JVM denies it whatever Netty is told").isFalse();
        assertThat(JvmFacts.directMemoryAccess(17, "true", null)).isFalse();
        assertThat(JvmFacts.directMemoryAccess(17, "", null)).as("-Dio.netty.noUnsafe alone means true").isFalse();
    }
}
