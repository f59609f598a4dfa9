package io.reactorrdma.perf;

import io.reactorrdma.tools.cli.ExitStatus;
import io.reactorrdma.perf.cli.EchoReply;
import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.tools.cli.UsageException;
import io.reactorrdma.perf.report.ResultWriter;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PerfOptionsTest {

    @Test
    void defaultsPerScenario() {
        PerfOptions lat = PerfOptions.parse(new String[]{"send-lat"});
        assertThat(lat.size).isEqualTo(8);
        assertThat(lat.transports).containsExactly(Transport.RDMA_SHM, Transport.RDMA_LOOPBACK, Transport.SHM_FLOOR);
        assertThat(lat.poll).isEqualTo(PollMode.SPIN);
        assertThat(lat.durationSeconds).isEqualTo(5);
        assertThat(lat.warmupSeconds).isEqualTo(2);
        assertThat(lat.csv).isFalse();

        PerfOptions bw = PerfOptions.parse(new String[]{"write-bw"});
        assertThat(bw.size).isEqualTo(1048576);
        assertThat(bw.transports).containsExactly(Transport.RDMA_SHM, Transport.RDMA_LOOPBACK, Transport.MEMCPY);
    }

    @Test
    void echoDefaultsAndConnections() {
        PerfOptions echo = PerfOptions.parse(new String[]{"echo"});
        assertThat(echo.size).isEqualTo(64);
        assertThat(echo.transports).containsExactly(Transport.RDMA_SHM, Transport.RDMA_LOOPBACK, Transport.TCP);
        assertThat(echo.connections).isEqualTo(1);
        assertThat(PerfOptions.parse(new String[]{"echo", "--connections", "4", "--transports", "tcp"}).connections).isEqualTo(4);
        assertThat(PerfOptions.parse(new String[]{"echo", "--connections=256"}).connections).isEqualTo(256);
        for (String bad : List.of("0", "-1", "257", "x", "1.5")) {
            assertThatThrownBy(() -> PerfOptions.parse(new String[]{"echo", "--connections", bad})).isInstanceOf(UsageException.class)
                    .hasMessageContaining("--connections '" + bad + "'");
        }
        assertThatThrownBy(() -> PerfOptions.parse(new String[]{"send-lat", "--connections", "2"}))
                .hasMessageContaining("echo, rsocket-rr, rsocket-stream and fanout only");
        assertThat(PerfMain.run(new String[]{"echo", "--transports", "memcpy"})).isEqualTo(ExitStatus.USAGE);
    }

    @Test
    void echoReply() {
        assertThat(PerfOptions.parse(new String[]{"echo"}).reply).isEqualTo(EchoReply.ECHO);
        assertThat(PerfOptions.parse(new String[]{"echo", "--reply", "own"}).reply).isEqualTo(EchoReply.OWN);
        assertThat(PerfOptions.parse(new String[]{"echo", "--reply=Echo"}).reply).isEqualTo(EchoReply.ECHO);
        assertThatThrownBy(() -> PerfOptions.parse(new String[]{"echo", "--reply", "copy"})).isInstanceOf(UsageException.class)
                .hasMessageContaining("unknown --reply 'copy'");
        assertThatThrownBy(() -> PerfOptions.parse(new String[]{"rsocket-rr", "--reply", "own"})).isInstanceOf(UsageException.class)
                .hasMessageContaining("--reply applies to echo only");
    }

    @Test
    void parsesBothOptionForms() {
        PerfOptions o = PerfOptions.parse(new String[]{"write-bw", "--size=4k", "--transports", "memcpy, rdma-loopback,memcpy",
                "--duration", "0.5", "--warmup=0", "--poll", "block", "--csv"});
        assertThat(o.size).isEqualTo(4096);
        assertThat(o.transports).containsExactly(Transport.MEMCPY, Transport.RDMA_LOOPBACK);
        assertThat(o.durationNanos()).isEqualTo(500_000_000L);
        assertThat(o.warmupNanos()).isZero();
        assertThat(o.poll).isEqualTo(PollMode.BLOCK);
        assertThat(o.csv).isTrue();
    }

    @Test
    void sizes() {
        assertThat(PerfOptions.parseSize("1")).isEqualTo(1);
        assertThat(PerfOptions.parseSize("1m")).isEqualTo(1 << 20);
        assertThat(PerfOptions.parseSize("1G")).isEqualTo(1 << 30);
        for (String bad : List.of("0", "-1", "2g", "1025m", "abc", "", "1.5k")) {
            assertThatThrownBy(() -> PerfOptions.parseSize(bad)).isInstanceOf(UsageException.class).hasMessageContaining("--size");
        }
    }

    @Test
    void badCommandLinesSayWhatIsWrong() {
        assertThatThrownBy(() -> PerfOptions.parse(new String[0])).hasMessageContaining("no scenario");
        assertThatThrownBy(() -> PerfOptions.parse(new String[]{"read-lat"})).hasMessageContaining("unknown scenario 'read-lat'");
        assertThatThrownBy(() -> PerfOptions.parse(new String[]{"send-lat", "--transports", "udp"}))
                .hasMessageContaining("unknown transport 'udp'").hasMessageContaining("rdma-shm");
        assertThatThrownBy(() -> PerfOptions.parse(new String[]{"send-lat", "--poll", "busy"})).hasMessageContaining("spin or block");
        assertThatThrownBy(() -> PerfOptions.parse(new String[]{"send-lat", "--duration", "0"})).hasMessageContaining("--duration");
        assertThatThrownBy(() -> PerfOptions.parse(new String[]{"send-lat", "--size"}))
                .hasMessageContaining("Missing required parameter for option '--size'");
        assertThatThrownBy(() -> PerfOptions.parse(new String[]{"send-lat", "--verbose"}))
                .hasMessageContaining("Unknown option: '--verbose'");
    }

    @Test
    void helpListsEveryOption() {
        String help = Usage.text();
        for (String s : List.of("send-lat", "write-bw", "--transports", "--size", "--duration", "--warmup", "--poll", "--csv",
                "rdma-shm", "rdma-loopback", "shm-floor", "memcpy", "jmh", ResultWriter.CSV_HEADER, "echo", "tcp", "--connections")) {
            assertThat(help).contains(s);
        }
    }

    @Test
    void noApplicableTransportIsAUsageError() {
        assertThat(PerfMain.run(new String[]{"send-lat", "--transports", "memcpy"})).isEqualTo(ExitStatus.USAGE);
    }
}
