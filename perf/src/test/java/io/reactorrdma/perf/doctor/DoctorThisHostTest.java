package io.reactorrdma.perf.doctor;

import io.reactorrdma.perf.doctor.checks.LibdisniCheck;
import io.reactorrdma.perf.doctor.host.Host;
import io.reactorrdma.perf.doctor.host.HostPaths;
import io.reactorrdma.perf.doctor.host.JvmFacts;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The doctor on the machine the build runs on, which has no RDMA device and no libdisni (the test skips where it
 * has): the hardware lines fail with their fixes, shm can run, and auto says shm is what opens.
 */
class DoctorThisHostTest {

    @Test
    void withoutRdmaTheHardwareFailsWithFixesAndShmRuns() {
        assumeTrue(!Files.exists(Path.of("/sys/class/infiniband")) && LibdisniCheck.onLibraryPath(
                new Host(HostPaths.host(), JvmFacts.current())).isEmpty(), "this host has RDMA hardware or libdisni");
        assumeTrue(Files.isDirectory(Path.of("/dev/shm")), "no /dev/shm here");

        FakeHost.Run auto = FakeHost.Run.of(JvmFacts.current());
        assertThat(auto.exit()).as(auto.out()).isZero();
        assertThat(auto.line("devices")).startsWith("FAIL").contains("no RDMA device");
        assertThat(auto.fix("devices")).contains("modprobe rdma_rxe", "use shm");
        assertThat(auto.line("libdisni")).startsWith("FAIL");
        assertThat(auto.fix("libdisni")).contains("-Djava.library.path=");
        assertThat(auto.line("shm")).doesNotStartWith("FAIL");
        assertThat(auto.out()).contains("auto opens shm here (no RDMA device and no libdisni): shm can run (exit 0)");
        assertThat(auto.out()).contains("shm    can run", "disni  cannot run: fix devices");
        assertThat(auto.err()).isEmpty();

        assertThat(FakeHost.Run.of(JvmFacts.current(), "--provider", "shm").exit()).isZero();
        FakeHost.Run disni = FakeHost.Run.of(JvmFacts.current(), "--provider", "disni");
        assertThat(disni.exit()).isEqualTo(1);
        assertThat(disni.out()).contains("disni cannot run (exit 1): fix devices, ");
        assertThat(FakeHost.Run.of(JvmFacts.current(), "--provider", "FFM").exit()).isEqualTo(1);
    }
}
