package io.reactorrdma.perf;

import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.Scenario;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.tools.cli.UsageException;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** rdma-disni on the command line: --peer, where it applies, and the serve command's peer arguments. */
class RdmaDisniOptionsTest {

    @Test
    void rdmaDisniAppliesWhereRdmaShmDoesButRunsOnlyWhenAskedFor() {
        for (Scenario s : Scenario.values()) {
            assertThat(s.appliesTo(Transport.RDMA_DISNI)).as("%s", s).isEqualTo(s.appliesTo(Transport.RDMA_SHM));
            assertThat(PerfOptions.parse(new String[]{s.id()}).transports).doesNotContain(Transport.RDMA_DISNI);
        }
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
                .containsExactly("write-bw", "--provider", "disni", "--port", "18515", "--max-seconds", "3600",
                        "--host", "10.0.0.2", "--size", "1048576");
        assertThat(List.of(ServeCommand.peerArgs(new String[]{"send-lat", "--port", "7000", "--poll", "block"})))
                .containsSubsequence("--port", "7000").containsSubsequence("--poll", "block").contains("0.0.0.0");
        assertThatThrownBy(() -> ServeCommand.peerArgs(new String[]{"memcpy"})).isInstanceOf(UsageException.class)
                .hasMessageContaining("send-lat|write-bw");
        assertThatThrownBy(() -> ServeCommand.peerArgs(new String[]{"send-lat", "--bogus", "1"})).isInstanceOf(UsageException.class);
    }
}
