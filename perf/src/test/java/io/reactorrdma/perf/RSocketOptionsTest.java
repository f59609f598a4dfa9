package io.reactorrdma.perf;

import io.reactorrdma.tools.cli.ExitStatus;
import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.cli.Scenario;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.tools.cli.UsageException;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The RSocket scenarios on the command line, and rdma-disni where serve has no peer for the scenario. */
class RSocketOptionsTest {

    @Test
    void defaultsAndConnections() {
        PerfOptions rr = PerfOptions.parse(new String[]{"rsocket-rr"});
        assertThat(rr.scenario).isEqualTo(Scenario.RSOCKET_RR);
        assertThat(rr.size).isEqualTo(64);
        assertThat(rr.connections).isEqualTo(1);
        assertThat(rr.transports).containsExactly(Transport.RDMA_SHM, Transport.RDMA_LOOPBACK, Transport.TCP, Transport.LOCAL);

        PerfOptions stream = PerfOptions.parse(new String[]{"rsocket-stream", "--connections", "3", "--poll", "block",
            "--transports", "local,tcp"});
        assertThat(stream.size).isEqualTo(1 << 20);
        assertThat(stream.connections).isEqualTo(3);
        assertThat(stream.poll).isEqualTo(PollMode.BLOCK);
        assertThat(stream.transports).containsExactly(Transport.LOCAL, Transport.TCP);
        assertThatThrownBy(() -> PerfOptions.parse(new String[]{"rsocket-rr", "--connections", "0"})).isInstanceOf(UsageException.class)
                .hasMessageContaining("--connections '0'");
    }

    @Test
    void localAppliesToTheRSocketScenariosOnly() {
        assertThat(Transport.parse("local")).isEqualTo(Transport.LOCAL);
        assertThat(Scenario.RSOCKET_RR.appliesTo(Transport.LOCAL)).isTrue();
        assertThat(Scenario.RSOCKET_STREAM.appliesTo(Transport.LOCAL)).isTrue();
        assertThat(Scenario.ECHO.appliesTo(Transport.LOCAL)).isFalse();
        assertThat(Scenario.RSOCKET_RR.appliesTo(Transport.SHM_FLOOR)).isFalse();
        assertThat(PerfMain.run(new String[]{"echo", "--transports", "local"})).isEqualTo(ExitStatus.USAGE);
    }

    @Test
    void rdmaDisniIsAUsageErrorWhereServeHasNoPeer() {
        for (String scenario : new String[]{"echo", "rsocket-rr", "rsocket-stream"}) {
            assertThatThrownBy(() -> PerfOptions.parse(new String[]{scenario, "--transports", "rdma-disni", "--peer", "10.0.0.2"}))
                    .isInstanceOf(UsageException.class).hasMessageContaining("rdma-disni is not available for " + scenario)
                    .hasMessageContaining("rdma-shm or rdma-loopback");
            assertThat(PerfMain.run(new String[]{scenario, "--transports", "rdma-disni"})).isEqualTo(ExitStatus.USAGE);
        }
        assertThat(PerfOptions.parse(new String[]{"send-lat", "--transports", "rdma-disni", "--peer", "10.0.0.2"}).transports)
                .containsExactly(Transport.RDMA_DISNI);
    }

    @Test
    void helpDescribesThem() {
        assertThat(Usage.text()).contains("rsocket-rr", "rsocket-stream", "local", "TcpClientTransport");
    }
}
