package io.reactorrdma.perf.doctor;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The doctor on a fake host tree ({@code --root}): a good RoCE host, then one thing wrong at a time. */
class DoctorFakeHostTest {

    @TempDir
    Path root;

    @Test
    void aGoodRoceHostIsAllOkAndEveryProviderOfTheReleaseCanRun() {
        FakeHost host = new FakeHost(root);
        FakeHost.Run auto = host.doctor();
        assertThat(auto.exit()).as(auto.out()).isZero();
        assertThat(auto.lines("WARN")).as(auto.out()).isEmpty();
        assertThat(auto.lines("FAIL")).as(auto.out()).isEmpty();
        assertThat(auto.line("devices")).contains("mlx5_0 (1 port)");
        assertThat(auto.line("port mlx5_0/1")).contains("ACTIVE (LinkUp)", "Ethernet (RoCE) on eth0", "100 Gb/sec",
                "RoCE MTU 4096 (eth0 mtu 9000)");
        assertThat(auto.line("gids mlx5_0/1")).contains("RoCE v2: 10.0.0.1 (index 3, eth0)");
        assertThat(auto.line("uverbs")).contains("/dev/infiniband/uverbs0");
        assertThat(auto.line("libibverbs.so.1")).contains("/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
        assertThat(auto.line("verbs drivers")).contains("mlx5");
        assertThat(auto.line("libdisni")).contains("/usr/local/lib/libdisni.so");
        assertThat(auto.line("memlock")).contains("unlimited", "64 MiB");
        assertThat(auto.line("shm")).contains("/dev/shm/reactor-rdma-test (created at first use): tmpfs");
        assertThat(auto.line("roce mlx5_0/1")).contains("default ToS 106, mode RoCE v2");
        assertThat(auto.line("pfc eth0")).contains("Priority 3: enabled");
        assertThat(auto.line("jdk")).contains("25+36 (test): runs shm, disni and ffm");
        assertThat(auto.out()).contains("auto opens ffm here (JDK 25, rdma-core's libraries and an RDMA device are present;"
                + " with reactor-rdma-verbs-ffm on the class path): ffm can run (exit 0)");
        assertThat(auto.out()).contains("disni  can run: start the JVM with --add-exports java.base/sun.nio.ch=ALL-UNNAMED",
                "ffm    can run: put reactor-rdma-verbs-ffm on the class path and start the JVM with --enable-native-access=ALL-UNNAMED");
        assertThat(host.doctor("--provider", "disni").exit()).isZero();
        assertThat(host.doctor("--provider", "shm").exit()).isZero();
        FakeHost.Run ffm = host.doctor("--provider", "ffm");
        assertThat(ffm.exit()).as(ffm.out()).isZero();
        assertThat(ffm.out()).contains("ffm can run (exit 0); select it with reactor.rdma.provider=ffm (or auto)");

        // the same host on JDK 17: auto opens disni, ffm alone cannot run
        host.jvm = host.jvm.withJdk(17, "17.0.15");
        FakeHost.Run auto17 = host.doctor();
        assertThat(auto17.out()).contains("auto opens disni here (libdisni is on java.library.path and sysfs lists an RDMA device)"
                + ": disni can run (exit 0)");
        assertThat(auto17.exit()).isZero();
    }

    @Test
    void withoutLibdisniDisniFailsAndAutoFallsBackToShm() {
        FakeHost host = new FakeHost(root).delete("usr/local/lib/libdisni.so");
        host.jvm = host.jvm.withJdk(17, "17.0.15"); // on 22+ auto would open ffm here
        FakeHost.Run disni = host.doctor("--provider", "disni");
        assertThat(disni.exit()).isEqualTo(1);
        assertThat(disni.line("libdisni")).startsWith("FAIL").contains("no libdisni.so on java.library.path (/usr/local/lib)");
        assertThat(disni.fix("libdisni")).contains("build DiSNI 2.1's libdisni", "-Djava.library.path=/usr/local/lib");
        assertThat(disni.out()).contains("disni  cannot run: fix libdisni (FAIL above)");
        FakeHost.Run auto = host.doctor();
        assertThat(auto.exit()).isZero();
        assertThat(auto.out()).contains("auto opens shm here (no libdisni): shm can run (exit 0)");
    }

    @Test
    void libdisniInstalledButNotOnTheLibraryPathSaysWhichPathToSet() {
        FakeHost host = new FakeHost(root);
        host.jvm = host.jvm.withLibraryPath(java.util.List.of("/usr/java/packages/lib", "/usr/lib"));
        FakeHost.Run run = host.doctor("--provider", "disni");
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.line("libdisni")).contains("/usr/local/lib/libdisni.so exists but is not on java.library.path");
        assertThat(run.fix("libdisni")).contains("-Djava.library.path=/usr/local/lib");
    }

    @Test
    void aDownPortFailsTheHardwareProvidersUnlessAnotherPortIsActive() {
        FakeHost host = new FakeHost(root).port("mlx5_0", 1, "1: DOWN", "3: Disabled", "Ethernet");
        host.jvm = host.jvm.withJdk(17, "17.0.15"); // auto opens disni, as on 22+ it would open ffm (both blocked alike)
        FakeHost.Run down = host.doctor("--provider", "disni");
        assertThat(down.exit()).isEqualTo(1);
        assertThat(down.line("port mlx5_0/1")).startsWith("FAIL").contains("DOWN (Disabled)");
        assertThat(down.fix("port mlx5_0/1")).contains("sudo ip link set dev eth0 up");
        assertThat(down.out()).contains("disni  cannot run: fix port mlx5_0/1");
        FakeHost.Run auto = host.doctor();
        assertThat(auto.exit()).as("auto does not fall back to shm where hardware is present").isEqualTo(1);
        assertThat(auto.out()).contains("auto opens disni here", "disni cannot run (exit 1)", "reactor.rdma.provider=shm");

        host.port("mlx5_1", 1, "4: ACTIVE", "5: LinkUp", "Ethernet").gid("mlx5_1", 1, 0, FakeHost.V2_IPV4, "RoCE v2", "eth1")
                .write("sys/class/net/eth1/mtu", "9000");
        FakeHost.Run second = host.doctor("--provider", "disni");
        assertThat(second.line("port mlx5_0/1")).startsWith("WARN");
        assertThat(second.line("port mlx5_1/1")).startsWith("OK");
        assertThat(second.exit()).as(second.out()).isZero();
    }

    @Test
    void anActivePortWithoutGidsIsNotRescuedByADownPortWithGids() {
        FakeHost host = new FakeHost(root).noGids("mlx5_0", 1).port("mlx5_1", 1, "1: DOWN", "3: Disabled", "Ethernet")
                .gid("mlx5_1", 1, 3, FakeHost.V2_IPV4, "RoCE v2", "eth1");
        FakeHost.Run run = host.doctor("--provider", "disni");
        assertThat(run.line("port mlx5_1/1")).startsWith("WARN");
        assertThat(run.line("gids mlx5_0/1")).startsWith("FAIL");
        assertThat(run.line("gids mlx5_1/1")).startsWith("OK");
        assertThat(run.exit()).isEqualTo(1);
    }

    @Test
    void anInfinibandPortWithoutASubnetManagerSaysToStartOne() {
        FakeHost host = new FakeHost(root).port("mlx5_0", 1, "2: INIT", "5: LinkUp", "InfiniBand");
        FakeHost.Run run = host.doctor("--provider", "disni");
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.line("port mlx5_0/1")).startsWith("FAIL").contains("INIT (LinkUp), InfiniBand");
        assertThat(run.fix("port mlx5_0/1")).contains("opensm");
    }

    @Test
    void anActiveInfinibandPortNeedsNoRoceSettings() {
        FakeHost host = new FakeHost(root).port("mlx5_0", 1, "4: ACTIVE", "5: LinkUp", "InfiniBand")
                .delete("sys/class/infiniband/mlx5_0/ports/1/gid_attrs")
                .delete("sys/class/infiniband/mlx5_0/ports/1/gids").gid("mlx5_0", 1, 0, FakeHost.V1_LINK_LOCAL, "IB/RoCE v1", null);
        FakeHost.Run run = host.doctor("--provider", "disni");
        assertThat(run.exit()).as(run.out()).isZero();
        assertThat(run.line("port mlx5_0/1")).startsWith("OK").contains("InfiniBand", "MTU not in sysfs");
        assertThat(run.line("gids mlx5_0/1")).startsWith("OK").contains("1 GID, index 0 " + FakeHost.V1_LINK_LOCAL);
        assertThat(run.out()).doesNotContain("roce mlx5_0/1", "pfc ");
    }

    @Test
    void aRocePortWithoutGidsFailsWithTheAddressToAdd() {
        FakeHost host = new FakeHost(root).noGids("mlx5_0", 1);
        FakeHost.Run run = host.doctor("--provider", "disni");
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.line("gids mlx5_0/1")).startsWith("FAIL").contains("no GID");
        assertThat(run.fix("gids mlx5_0/1")).contains("IPv4 address", "reactor.rdma.disni.address");
    }

    @Test
    void roceV2OnlyForIpv6FailsDisniAndFfmWhichAreIpv4Only() {
        FakeHost host = new FakeHost(root).noGids("mlx5_0", 1)
                .gid("mlx5_0", 1, 1, "fd00:0000:0000:0000:0000:0000:0000:0001", "RoCE v2", "eth0");
        FakeHost.Run run = host.doctor("--provider", "disni");
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.line("gids mlx5_0/1")).startsWith("FAIL").contains("RoCE v2 only for IPv6 addresses");
        assertThat(run.fix("gids mlx5_0/1")).contains("disni and ffm are IPv4 only");
        assertThat(run.out()).contains("disni  cannot run: fix gids mlx5_0/1", "ffm    cannot run: fix gids mlx5_0/1");
    }

    @Test
    void onlyRoceV1GidsWarn() {
        FakeHost host = new FakeHost(root).noGids("mlx5_0", 1).gid("mlx5_0", 1, 2, FakeHost.V2_IPV4, "IB/RoCE v1", "eth0");
        FakeHost.Run run = host.doctor("--provider", "disni");
        assertThat(run.line("gids mlx5_0/1")).startsWith("WARN").contains("no RoCE v2 GID, only RoCE v1: 10.0.0.1");
        assertThat(run.exit()).isZero();
    }

    @Test
    void lowMemlockFailsTheHardwareProvidersWithTheNumberAndHowToRaiseIt() {
        FakeHost host = new FakeHost(root).memlock("8388608", "8388608");
        FakeHost.Run run = host.doctor("--provider", "disni");
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.line("memlock")).startsWith("FAIL").contains("8 MiB (hard 8 MiB): too low for disni and ffm",
                "disni needs at least 64 MiB", "reactor.rdma.disni.minMemlock", "about 26 MiB for one connection");
        assertThat(run.fix("memlock")).contains("/etc/security/limits.conf", "LimitMEMLOCK=infinity", "--ulimit memlock=-1");
        assertThat(run.out()).contains("ffm    cannot run: fix memlock (FAIL above)");
        assertThat(host.doctor("--provider", "shm").exit()).as("shm pins nothing").isZero();

        host.memlock("8388608", "unlimited");
        assertThat(host.doctor().fix("memlock")).contains("ulimit -l unlimited", "the hard limit allows it");

        host.memlock("134217728", "134217728");
        assertThat(host.doctor().line("memlock")).startsWith("OK").contains("128 MiB", "room for about 18 client connections");
    }

    @Test
    void memlockIsJudgedPerProviderFfmNeedsThePoolsDisniItsFloor() {
        FakeHost host = new FakeHost(root).memlock("33554432", "33554432"); // 32 MiB: above the pools' 26, below disni's 64
        FakeHost.Run auto = host.doctor();
        assertThat(auto.line("memlock")).startsWith("FAIL").contains("32 MiB (hard 32 MiB): enough for ffm, not for disni",
                "disni needs at least 64 MiB (its floor, reactor.rdma.disni.minMemlock)", "ffm about 26 MiB");
        assertThat(auto.fix("memlock")).contains("/etc/security/limits.conf");
        assertThat(auto.out()).contains("ffm    can run", "disni  cannot run: fix memlock (FAIL above)",
                "auto opens ffm here (JDK 25, rdma-core's libraries and an RDMA device are present; with reactor-rdma-verbs-ffm on the"
                        + " class path): ffm can run (exit 0)");
        assertThat(auto.exit()).as(auto.out()).isZero();
        FakeHost.Run ffm = host.doctor("--provider", "ffm");
        assertThat(ffm.exit()).as(ffm.out()).isZero();
        FakeHost.Run disni = host.doctor("--provider", "disni");
        assertThat(disni.exit()).isEqualTo(1);
        assertThat(disni.out()).contains("disni cannot run (exit 1): fix memlock above");

        host.memlock("33554432", "unlimited");
        assertThat(host.doctor().fix("memlock")).contains("ulimit -l unlimited (KiB; at least 65536 for disni)");

        host.memlock("16777216", "16777216"); // 16 MiB: too little for the pools, so for both
        FakeHost.Run low = host.doctor();
        assertThat(low.line("memlock")).startsWith("FAIL").contains("16 MiB (hard 16 MiB): too low for disni and ffm");
        assertThat(low.out()).contains("ffm    cannot run: fix memlock (FAIL above)", "disni  cannot run: fix memlock (FAIL above)");
        assertThat(low.exit()).isEqualTo(1);

        // on JDK 21 the same 32 MiB host opens disni, which its floor keeps from running
        host.memlock("33554432", "33554432");
        host.jvm = host.jvm.withJdk(21, "21.0.7");
        FakeHost.Run auto21 = host.doctor();
        assertThat(auto21.out()).contains("auto opens disni here", "disni cannot run (exit 1)");
        assertThat(auto21.exit()).isEqualTo(1);
    }

    @Test
    void aLoweredDisniFloorMakesThePoolsTheNeedOfBoth() {
        FakeHost host = new FakeHost(root).memlock("33554432", "33554432");
        host.jvm = new io.reactorrdma.perf.doctor.host.JvmFacts(25, "25+36 (test)", java.util.List.of("/usr/local/lib"),
                java.util.List.of(), 16L << 20, "/dev/shm/reactor-rdma-test", "amd64", true);
        FakeHost.Run run = host.doctor();
        assertThat(run.line("memlock")).startsWith("OK").contains("disni needs at least 26 MiB (for the default pools; its floor is"
                + " 16 MiB, reactor.rdma.disni.minMemlock)");
        assertThat(run.out()).contains("disni  can run", "ffm    can run");
    }

    @Test
    void aSmallEthernetMtuWarnsWithTheRoceMtuItGives() {
        FakeHost host = new FakeHost(root).write("sys/class/net/eth0/mtu", "1500");
        FakeHost.Run run = host.doctor();
        assertThat(run.line("port mlx5_0/1")).startsWith("WARN").contains("RoCE MTU 1024 (eth0 mtu 1500)");
        assertThat(run.fix("port mlx5_0/1")).contains("mtu 9000");
        assertThat(run.exit()).isZero();
    }

    @Test
    void unreadableRoceSettingsAreSaidSoAndWarn() {
        FakeHost host = new FakeHost(root).delete("sys/kernel/config").delete("sys/class/net/eth0/qos");
        FakeHost.Run run = host.doctor();
        assertThat(run.line("roce mlx5_0/1")).startsWith("WARN").contains("unreadable", "ToS 0");
        assertThat(run.fix("roce mlx5_0/1")).contains("default_roce_tos", "106");
        assertThat(run.line("pfc eth0")).startsWith("WARN").contains("not readable from sysfs");
        assertThat(run.fix("pfc eth0")).contains("mlnx_qos -i eth0");
        assertThat(run.exit()).isZero();

        host.write("sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos", "0");
        host.write("sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode", "IB/RoCE v1");
        assertThat(host.doctor().line("roce mlx5_0/1")).startsWith("WARN").contains("default ToS 0, mode IB/RoCE v1");
    }

    @Test
    void missingDeviceFilesAndLibrariesFailWithWhatToInstall() {
        FakeHost host = new FakeHost(root).delete("dev/infiniband").delete("usr/lib/x86_64-linux-gnu");
        FakeHost.Run run = host.doctor("--provider", "disni");
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.fix("uverbs")).contains("modprobe ib_uverbs", "--device=/dev/infiniband/uverbs0");
        assertThat(run.fix("rdma_cm")).contains("modprobe rdma_ucm");
        assertThat(run.line("libibverbs.so.1")).startsWith("FAIL");
        assertThat(run.fix("librdmacm.so.1")).contains("apt-get install rdma-core", "dnf install rdma-core");
    }

    @Test
    void librariesNamedByTheLinkerCacheAreFound() {
        FakeHost host = new FakeHost(root).delete("usr/lib/x86_64-linux-gnu").write("opt/rdma/lib/libibverbs.so.1", "")
                .write("opt/rdma/lib/librdmacm.so.1", "")
                .write("etc/ld.so.cache", "glibc-ld.so.cache1.1\0libibverbs.so.1\0/opt/rdma/lib/libibverbs.so.1\0librdmacm.so.1\0"
                        + "/opt/rdma/lib/librdmacm.so.1\0");
        FakeHost.Run run = host.doctor();
        assertThat(run.line("libibverbs.so.1")).startsWith("OK").contains("/opt/rdma/lib/libibverbs.so.1");
        assertThat(run.line("librdmacm.so.1")).startsWith("OK").contains("/opt/rdma/lib/librdmacm.so.1");
        assertThat(run.line("verbs drivers")).startsWith("WARN").contains("/opt/rdma/lib/libibverbs");
    }

    @Test
    void noShmDirectoryFailsShm() {
        FakeHost host = new FakeHost(root).delete("dev/shm");
        FakeHost.Run run = host.doctor("--provider", "shm");
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.line("shm")).startsWith("FAIL").contains("/dev/shm does not exist");
        assertThat(run.fix("shm")).contains("reactor.rdma.shm-directory", "-Dreactor.rdma.soft.shmDir");
    }

    @Test
    void aShmDirectoryThatIsNotPrivateFailsShm() throws Exception {
        FakeHost host = new FakeHost(root).mkdirs("dev/shm/reactor-rdma-test");
        java.nio.file.Files.setPosixFilePermissions(root.resolve("dev/shm/reactor-rdma-test"),
                java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        FakeHost.Run run = host.doctor("--provider", "shm");
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.line("shm")).startsWith("FAIL").contains("rwxr-xr-x");
    }

    @Test
    void aShmDirectoryNotOnTmpfsWarns() {
        FakeHost host = new FakeHost(root).write("proc/mounts", "/dev/sda1 / ext4 rw 0 0\n");
        FakeHost.Run run = host.doctor("--provider", "shm");
        assertThat(run.line("shm")).startsWith("WARN").contains("ext4");
        assertThat(run.exit()).isZero();
    }

    @Test
    void jdk17IsTheDisniPathAWarningThatBlocksFfmAloneNotAFailure() {
        FakeHost host = new FakeHost(root);
        host.jvm = host.jvm.withJdk(17, "17.0.15");
        FakeHost.Run run = host.doctor();
        assertThat(run.line("jdk")).startsWith("WARN").contains("17.0.15: ffm needs JDK 22+", "disni is the JDK 17 path");
        assertThat(run.fix("jdk")).contains("run on JDK 22 or later to use ffm", "reactor.rdma.provider=disni");
        assertThat(run.lines("FAIL")).as("a JDK that runs disni is no failure of the host").isEmpty();
        assertThat(run.exit()).isZero();
        assertThat(run.out()).contains("ffm    cannot run: fix jdk (WARN above)", "disni  can run",
                "auto opens disni here (libdisni is on java.library.path and sysfs lists an RDMA device): disni can run (exit 0)");
        FakeHost.Run ffm = host.doctor("--provider", "ffm");
        assertThat(ffm.exit()).as("ffm itself still cannot run on 17").isEqualTo(1);
        assertThat(ffm.out()).contains("ffm cannot run (exit 1): fix jdk above");

        host.jvm = host.jvm.withJdk(21, "21.0.7");
        assertThat(host.doctor().line("jdk")).startsWith("WARN").contains("21.0.7: ffm needs JDK 22+");
        host.jvm = host.jvm.withJdk(22, "22.0.2");
        assertThat(host.doctor().line("jdk")).startsWith("OK").contains("22.0.2: runs shm, disni and ffm");
    }

    @Test
    void withoutNettysDirectMemoryAccessNoProviderCanRun() {
        FakeHost host = new FakeHost(root);
        host.jvm = host.jvm.withDirectMemoryAccess(false);
        FakeHost.Run run = host.doctor("--provider", "shm");
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.line("netty memory")).startsWith("FAIL").contains("Netty's direct memory access (sun.misc.Unsafe) is off");
        assertThat(run.fix("netty memory")).contains("--sun-misc-unsafe-memory-access=allow", "without -Dio.netty.noUnsafe=true");
        assertThat(run.out()).contains("shm    cannot run: fix netty memory", "disni  cannot run: fix netty memory",
                "ffm    cannot run: fix netty memory");
    }
}
