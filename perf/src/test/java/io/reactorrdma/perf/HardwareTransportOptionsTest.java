package io.reactorrdma.perf;

import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.Scenario;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.tools.cli.UsageException;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The hardware transports on the command line (rdma-disni, rdma-ffm): --peer, where they apply, the serve command's peer
 * arguments; and --provider, rdma-loopback's provider.
 */
class HardwareTransportOptionsTest {

    /** serve's provider unless told otherwise: ffm on the Java that has FFM, disni before. */
    static final String DEFAULT_SERVE_PROVIDER = Runtime.version().feature() >= 22 ? "ffm" : "disni";

    @Test
    void theHardwareTransportsApplyWhereRdmaShmDoesButRunOnlyWhenAskedFor() {
        for (Transport hw : List.of(Transport.RDMA_DISNI, Transport.RDMA_FFM)) {
            assertThat(hw.onRemoteHardware()).isTrue();
            for (Scenario s : Scenario.values()) {
                assertThat(s.appliesTo(hw)).as("%s on %s", s, hw).isEqualTo(s.appliesTo(Transport.RDMA_SHM));
                assertThat(PerfOptions.parse(new String[]{s.id()}).transports).doesNotContain(hw);
            }
        }
        assertThat(Transport.RDMA_FFM.hardwareProvider()).isEqualTo("ffm");
        assertThat(Transport.RDMA_DISNI.hardwareProvider()).isEqualTo("disni");
        assertThat(Transport.RDMA_LOOPBACK.onRemoteHardware()).isFalse();
    }

    @Test
    void rdmaFfmNeedsAPeerStartedWithProviderFfmAndOneRun() {
        assertThatThrownBy(() -> PerfOptions.parse(new String[]{"send-lat", "--transports", "rdma-ffm"}))
                .isInstanceOf(UsageException.class).hasMessageContaining("rdma-ffm needs --peer")
                .hasMessageContaining("serve send-lat --provider ffm");
        assertThatThrownBy(() -> PerfOptions.parse(new String[]{"echo", "--transports", "rdma-ffm", "--peer", "10.0.0.2"}))
                .isInstanceOf(UsageException.class).hasMessageContaining("rdma-ffm is not available for echo");
        assertThatThrownBy(() -> PerfOptions.parse(new String[]{"send-lat", "--transports", "rdma-ffm", "--peer", "10.0.0.2",
                "--repeat", "3"})).isInstanceOf(UsageException.class).hasMessageContaining("measure rdma-ffm with --repeat 1");
        PerfOptions o = PerfOptions.parse(new String[]{"write-bw", "--transports", "rdma-ffm", "--peer", "10.0.0.2:9000"});
        assertThat(o.transports).containsExactly(Transport.RDMA_FFM);
        assertThat(o.peerPort).isEqualTo(9000);
        assertThat(Usage.text()).contains("rdma-ffm", "serve --provider ffm");
    }

    @Test
    void providerNamesRdmaLoopbacksProviderInSendLatAndWriteBwOnly() {
        assertThat(PerfOptions.parse(new String[]{"send-lat"}).loopbackProvider).isEqualTo("loopback");
        assertThat(PerfOptions.parse(new String[]{"write-bw", "--transports", "rdma-loopback", "--provider", "ffm"})
                .loopbackProvider).isEqualTo("ffm");
        assertThatThrownBy(() -> PerfOptions.parse(new String[]{"echo", "--provider", "ffm"})).isInstanceOf(UsageException.class)
                .hasMessageContaining("--provider applies to send-lat and write-bw");
        assertThatThrownBy(() -> PerfOptions.parse(new String[]{"send-lat", "--transports", "rdma-shm", "--provider", "ffm"}))
                .isInstanceOf(UsageException.class).hasMessageContaining("add it to --transports");
        assertThatThrownBy(() -> PerfOptions.parse(new String[]{"send-lat", "--provider", "auto"}))
                .isInstanceOf(UsageException.class).hasMessageContaining("needs a provider's name");
        assertThat(Usage.text()).contains("--provider=NAME");
    }

    @Test
    void rdmaDisniNeedsAPeer() {
        assertThatThrownBy(() -> PerfOptions.parse(new String[]{"send-lat", "--transports", "rdma-disni"}))
                .isInstanceOf(UsageException.class).hasMessageContaining("--peer").hasMessageContaining("serve send-lat");
        PerfOptions o = PerfOptions.parse(new String[]{"write-bw", "--transports", "rdma-disni,rdma-shm", "--peer", "10.0.0.2"});
        assertThat(o.transports).containsExactly(Transport.RDMA_DISNI, Transport.RDMA_SHM);
        assertThat(o.peerHost).isEqualTo("10.0.0.2");
        assertThat(o.peerPort).isEqualTo(PerfOptions.DEFAULT_PEER_PORT);
        PerfOptions p = PerfOptions.parse(new String[]{"send-lat", "--transports=rdma-disni", "--peer=node7:9000"});
        assertThat(p.peerHost).isEqualTo("node7");
        assertThat(p.peerPort).isEqualTo(9000);
        assertThatThrownBy(() -> PerfOptions.parse(new String[]{"send-lat", "--peer", "node7:x"})).isInstanceOf(UsageException.class)
                .hasMessageContaining("HOST:PORT");
        assertThat(Transport.parse("rdma-disni")).isEqualTo(Transport.RDMA_DISNI);
        assertThat(Usage.text()).contains("rdma-disni", "--peer", "serve");
    }

    @Test
    void serveStartsTheHardwarePeerWithItsDefaults() {
        assertThat(List.of(ServeCommand.peerArgs(new String[]{"write-bw", "--host", "10.0.0.2", "--size", "1m"})))
                .containsExactly("write-bw", "--provider", DEFAULT_SERVE_PROVIDER, "--port", "18515", "--max-seconds", "3600",
                        "--host", "10.0.0.2", "--size", "1048576");
        assertThat(List.of(ServeCommand.peerArgs(new String[]{"send-lat", "--port", "7000", "--poll", "block"})))
                .containsSubsequence("--port", "7000").containsSubsequence("--poll", "block").contains("0.0.0.0");
        assertThatThrownBy(() -> ServeCommand.peerArgs(new String[]{"memcpy"})).isInstanceOf(UsageException.class)
                .hasMessageContaining("send-lat|write-bw");
        assertThatThrownBy(() -> ServeCommand.peerArgs(new String[]{"send-lat", "--bogus", "1"})).isInstanceOf(UsageException.class);
    }
}
