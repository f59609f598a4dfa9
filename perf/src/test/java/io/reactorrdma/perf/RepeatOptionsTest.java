package io.reactorrdma.perf;

import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.tools.cli.ExitStatus;
import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.cli.Scenario;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.tools.cli.UsageException;
import io.reactorrdma.perf.measure.RdmaEchoResources;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** --poll's modes and lists, --repeat and --baseline: parsed, defaulted, and refused with a message that says what to do. */
class RepeatOptionsTest {

    private static PerfOptions parse(String... args) {
        return PerfOptions.parse(args);
    }

    @Test
    void theLibrarysIdlePolicyIsTheDefaultWhereTheEngineRunsTheIo() {
        for (String s : List.of("echo", "rsocket-rr", "rsocket-stream", "fanout")) {
            PerfOptions o = parse(s);
            assertThat(o.polls).as(s).containsExactly(PollMode.BACK_OFF);
            assertThat(o.poll).as(s).isEqualTo(PollMode.BACK_OFF);
        }
        for (String s : List.of("send-lat", "write-bw")) {
            assertThat(parse(s).polls).as(s).containsExactly(PollMode.SPIN);
        }
        assertThat(RdmaEchoResources.idle(PollMode.BACK_OFF)).isEqualTo(IdleStrategy.BACK_OFF);
        assertThat(RdmaEchoResources.idle(PollMode.SPIN)).isEqualTo(IdleStrategy.BUSY_SPIN);
        assertThat(RdmaEchoResources.idle(PollMode.BLOCK)).isEqualTo(IdleStrategy.BLOCK);
    }

    @Test
    void pollTakesACommaListInOrderEachModeOnce() {
        PerfOptions o = parse("rsocket-rr", "--poll", "back-off, spin,block,spin");
        assertThat(o.polls).containsExactly(PollMode.BACK_OFF, PollMode.SPIN, PollMode.BLOCK);
        assertThat(o.poll).isEqualTo(PollMode.BACK_OFF);
        PerfOptions spin = o.withPoll(PollMode.SPIN);
        assertThat(spin.poll).isEqualTo(PollMode.SPIN);
        assertThat(spin.polls).isEqualTo(o.polls);
        assertThat(spin.transports).isEqualTo(o.transports);
        assertThat(parse("send-lat", "--poll=block,spin").polls).containsExactly(PollMode.BLOCK, PollMode.SPIN);
        assertThatThrownBy(() -> parse("echo", "--poll", " , ")).isInstanceOf(UsageException.class).hasMessageContaining("--poll is empty");
        assertThatThrownBy(() -> parse("echo", "--poll", "spin,backoff")).isInstanceOf(UsageException.class)
                .hasMessageContaining("unknown poll mode 'backoff'").hasMessageContaining("back-off, spin or block");
    }

    @Test
    void backOffIsRefusedWhereTheLoopPollsByHand() {
        for (String s : List.of("send-lat", "write-bw")) {
            assertThatThrownBy(() -> parse(s, "--poll", "spin,back-off")).isInstanceOf(UsageException.class)
                    .hasMessageContaining("back-off").hasMessageContaining(s + " polls its completion queues by hand")
                    .hasMessageContaining("use --poll spin or block");
        }
        assertThat(PerfMain.run(new String[]{"send-lat", "--poll", "back-off"})).isEqualTo(ExitStatus.USAGE);
        assertThatThrownBy(() -> ServeCommand.peerArgs(new String[]{"send-lat", "--poll", "back-off"})).isInstanceOf(UsageException.class)
                .hasMessageContaining("spin or block");
        assertThatThrownBy(() -> ServeCommand.peerArgs(new String[]{"write-bw", "--poll", "sometimes"})).isInstanceOf(UsageException.class)
                .hasMessageContaining("unknown poll mode 'sometimes'");
        assertThat(List.of(ServeCommand.peerArgs(new String[]{"write-bw", "--poll", "block"}))).containsSubsequence("--poll", "block");
    }

    @Test
    void repeatIsOneToFifty() {
        assertThat(parse("echo").repeat).isEqualTo(PerfOptions.DEFAULT_REPEAT).isEqualTo(1);
        assertThat(parse("echo", "--repeat", "3").repeat).isEqualTo(3);
        assertThat(parse("send-lat", "--repeat=50").repeat).isEqualTo(50);
        for (String bad : List.of("0", "-1", "51", "x", "1.5", "")) {
            assertThatThrownBy(() -> parse("echo", "--repeat", bad)).as(bad).isInstanceOf(UsageException.class)
                    .hasMessageContaining("--repeat '" + bad + "'").hasMessageContaining("1..50");
        }
        assertThatThrownBy(() -> parse("echo", "--repeat")).hasMessageContaining("Missing required parameter for option '--repeat'");
        assertThat(PerfMain.run(new String[]{"echo", "--repeat", "51"})).isEqualTo(ExitStatus.USAGE);
    }

    @Test
    void rdmaDisniServesOneRunSoItCannotRepeat() {
        for (String[] more : List.of(new String[]{"--repeat", "2"}, new String[]{"--poll", "spin,block"})) {
            String[] args = {"send-lat", "--transports", "rdma-disni", "--peer", "10.0.0.2", more[0], more[1]};
            assertThatThrownBy(() -> parse(args)).as(more[0]).isInstanceOf(UsageException.class)
                    .hasMessageContaining("serves one run").hasMessageContaining("start serve again");
        }
        assertThat(parse("send-lat", "--transports", "rdma-disni", "--peer", "10.0.0.2", "--repeat", "1").repeat).isEqualTo(1);
    }

    @Test
    void theBaselineIsTcpOrTheFloorOrTheFirstTransportOrTheOneNamed() {
        assertThat(parse("echo").baseline).isEqualTo(Transport.TCP);
        assertThat(parse("rsocket-stream", "--transports", "local,tcp").baseline).isEqualTo(Transport.TCP);
        assertThat(parse("fanout").baseline).isEqualTo(Transport.TCP);
        assertThat(parse("send-lat").baseline).isEqualTo(Transport.SHM_FLOOR);
        assertThat(parse("write-bw").baseline).isEqualTo(Transport.MEMCPY);
        assertThat(Scenario.SEND_LAT.baseline()).isEqualTo(Transport.SHM_FLOOR);
        assertThat(parse("echo", "--transports", "memcpy,rdma-shm,rdma-loopback").baseline).as("the first that applies")
                .isEqualTo(Transport.RDMA_SHM);
        assertThat(parse("echo", "--transports", "rdma-shm,rdma-loopback,tcp", "--baseline", "rdma-loopback").baseline)
                .isEqualTo(Transport.RDMA_LOOPBACK);
        assertThatThrownBy(() -> parse("echo", "--transports", "rdma-shm,tcp", "--baseline", "rdma-loopback"))
                .isInstanceOf(UsageException.class).hasMessageContaining("--baseline rdma-loopback is not among the transports");
        assertThatThrownBy(() -> parse("echo", "--baseline", "memcpy")).isInstanceOf(UsageException.class)
                .hasMessageContaining("--baseline memcpy");
        assertThatThrownBy(() -> parse("echo", "--baseline", "udp")).hasMessageContaining("unknown transport 'udp'");
    }

    @Test
    void severalPollModesChartToOneFileEach() {
        Path chart = Path.of("docs/images/rr.png");
        assertThat(ScenarioRounds.chartFile(chart, PollMode.SPIN, 1)).isEqualTo(chart);
        assertThat(ScenarioRounds.chartFile(chart, PollMode.BACK_OFF, 3)).isEqualTo(Path.of("docs/images/rr-back-off.png"));
        assertThat(ScenarioRounds.chartFile(Path.of("x.PNG"), PollMode.BLOCK, 2)).isEqualTo(Path.of("x-block.PNG"));
    }

    @Test
    void helpListsTheNewOptions() {
        assertThat(Usage.text()).contains("--repeat N", "--baseline=T", "back-off", "median", "cpu_x", "FILE-back-off.png");
    }
}
