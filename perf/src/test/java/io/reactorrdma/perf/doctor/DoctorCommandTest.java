package io.reactorrdma.perf.doctor;

import io.reactorrdma.perf.doctor.host.JvmFacts;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The doctor's command line: bad usage exits 2 with what is wrong, --help lists the options but not the hidden --root. */
class DoctorCommandTest {

    @TempDir
    Path root;

    @Test
    void anUnknownOptionIsAUsageError() {
        FakeHost.Run run = FakeHost.Run.of(JvmFacts.current(), "--bogus");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("error: Unknown option: '--bogus'", "see doctor --help");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void anUnknownProviderNamesTheOnesJudged() {
        FakeHost.Run run = FakeHost.Run.of(JvmFacts.current(), "--provider", "infiniband");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("error: --provider infiniband is not a provider the doctor judges; use one of auto|disni|shm|ffm");
    }

    @Test
    void aRootThatIsNotADirectoryIsAUsageError() {
        FakeHost.Run run = FakeHost.Run.of(JvmFacts.current(), "--root", root.resolve("missing").toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("--root", "is not a directory");
    }

    @Test
    void helpListsTheProviderOptionNotTheHiddenRoot() {
        FakeHost.Run run = FakeHost.Run.of(JvmFacts.current(), "--help");
        assertThat(run.exit()).isZero();
        assertThat(run.out()).contains("usage: java -jar reactor-rdma-perf.jar doctor [--provider auto|disni|shm|ffm]", "--provider",
                "exit status: 0 the judged provider can run here, 1 it cannot, 2 bad command line.");
        assertThat(run.out()).doesNotContain("--root");
        assertThat(DoctorCommand.help()).isEqualTo(run.out());
    }

    @Test
    void providerNamesAreReadInAnyCase() {
        FakeHost host = new FakeHost(root);
        assertThat(host.doctor("--provider", "SHM").out()).contains("judging --provider shm");
    }
}
