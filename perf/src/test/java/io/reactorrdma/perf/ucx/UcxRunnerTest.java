package io.reactorrdma.perf.ucx;

import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.cli.Scenario;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.report.Figure;
import io.reactorrdma.perf.report.Result;
import io.reactorrdma.perf.report.ResultWriter;
import io.reactorrdma.perf.ucx.UcxPerftest.Mode;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** How a Final: line becomes a row, and how many iterations a run takes; no ucx_perftest needed. */
class UcxRunnerTest {

    @Test
    void echoDoublesTheOneWayLatencyAndHalvesTheBothWaysBandwidth() {
        // Final:                200000      0.165     5.104    59.259       11.96       1.03      195928       16875
        Result r = UcxRunner.result(Scenario.ECHO, 64, Mode.TAG_LAT, UcxFinal.parse(UcxFinalTest.captured("tag_lat-64-client.txt")));
        assertThat(r.transport()).isEqualTo(Transport.UCX);
        assertThat(r.sizeBytes()).isEqualTo(64);
        assertThat(r.ops()).as("iterations: round trips").isEqualTo(200_000);
        assertThat(r.latency()).as("no samples").isNull();
        assertThat(Figure.MEAN.of(r)).as("2 x overall").isCloseTo(118.518, within(1e-9));
        assertThat(Figure.P50.of(r)).as("2 x the 50.0%ile").isCloseTo(0.330, within(1e-9));
        assertThat(Figure.MIB_PER_S.of(r)).as("overall / 2").isCloseTo(0.515, within(1e-9));
        for (Figure missing : new Figure[]{Figure.P99, Figure.P999, Figure.CLIENT_CPU, Figure.SERVER_CPU, Figure.CPU}) {
            assertThat(missing.of(r)).as(missing.name()).isNaN();
        }
    }

    @Test
    void echosSecondRunGivesItsP99AsARoundTripAndLeavesTheRestAsTheFirstGaveIt() {
        Result first = UcxRunner.result(Scenario.ECHO, 64, Mode.TAG_LAT, UcxFinal.parse(UcxFinalTest.captured("tag_lat-64-client.txt")));
        UcxFinal tail = UcxFinal.parse(java.util.List.of(
                "|    Stage     | # iterations | 99.0%ile | average | overall |  average |  overall |  average  |  overall  |",
                "Final:                200000      0.691     0.543     0.545      112.31     112.04     1840073     1835720"));
        Result r = UcxRunner.withTail(first, Mode.TAG_LAT, tail);
        assertThat(Figure.P99.of(r)).as("2 x the 99.0%ile").isCloseTo(1.382, within(1e-9));
        assertThat(Figure.P50.of(r)).as("the first run's").isCloseTo(0.330, within(1e-9));
        assertThat(Figure.MEAN.of(r)).as("the first run's").isCloseTo(118.518, within(1e-9));
        assertThat(r.ops()).isEqualTo(first.ops());
        assertThat(Figure.P999.of(r)).as("two of 2048 samples: not given").isNaN();
        assertThat(Figure.CLIENT_CPU.of(r)).isNaN();
    }

    @Test
    void theCsvLeavesWhatUcxDoesNotGiveEmpty() {
        Result r = UcxRunner.result(Scenario.ECHO, 64, Mode.TAG_LAT, UcxFinal.parse(UcxFinalTest.captured("tag_lat-64-client.txt")));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new ResultWriter(new PrintStream(bytes, true, StandardCharsets.UTF_8), true).row(r, PollMode.BACK_OFF, 1);
        assertThat(bytes.toString(StandardCharsets.UTF_8).trim()).isEqualTo("echo,ucx,64,200000,118.518,0.330,,,0.5,,,back-off,1,,,,,,,,,");
    }

    @Test
    void streamHasBandwidthOnly() {
        Result r = UcxRunner.result(Scenario.RSOCKET_STREAM, 1 << 20, Mode.TAG_BW,
                UcxFinal.parse(UcxFinalTest.captured("tag_bw-1m-client.txt")));
        assertThat(r.ops()).as("messages").isEqualTo(20_000);
        assertThat(r.mibPerSecond()).isEqualTo(815.49);
        assertThat(r.latency()).isNull();
        assertThat(r.reported()).as("its 'overhead' column is no round trip").isNull();
        assertThat(Figure.MEAN.of(r)).isNaN();
        assertThat(Figure.P50.of(r)).isNaN();
        assertThat(Figure.CLIENT_CPU.of(r)).isNaN();
    }

    @Test
    void scenarios() {
        assertThat(UcxRunner.mode(Scenario.ECHO)).isEqualTo(Mode.TAG_LAT);
        assertThat(UcxRunner.mode(Scenario.RSOCKET_STREAM)).isEqualTo(Mode.TAG_BW);
        assertThatThrownBy(() -> UcxRunner.mode(Scenario.RSOCKET_RR)).isInstanceOf(PerfException.class)
                .hasMessageContaining("does not run on ucx");
        assertThat(Scenario.ECHO.appliesTo(Transport.UCX)).isTrue();
        assertThat(Scenario.RSOCKET_STREAM.appliesTo(Transport.UCX)).isTrue();
        assertThat(Scenario.RSOCKET_RR.appliesTo(Transport.UCX)).isFalse();
        assertThat(Scenario.SEND_LAT.appliesTo(Transport.UCX)).isFalse();
        assertThat(Scenario.ECHO.transports()).as("only when asked for").doesNotContain(Transport.UCX);
        assertThat(Transport.parse("ucx")).isEqualTo(Transport.UCX);
    }

    @Test
    void iterationsFillTheDuration() {
        UcxFinal calibration = UcxFinal.parse(UcxFinalTest.captured("tag_lat-1m-client.txt")); // overall 3986.812 us one way
        assertThat(UcxRunner.secondsPerIteration(Mode.TAG_LAT, calibration)).isCloseTo(2 * 3986.812e-6, within(1e-15));
        UcxFinal bw = UcxFinal.parse(UcxFinalTest.captured("tag_bw-1m-client.txt")); // overall 1226.254 us a message
        assertThat(UcxRunner.secondsPerIteration(Mode.TAG_BW, bw)).isCloseTo(1226.254e-6, within(1e-15));

        assertThat(UcxRunner.iterations(2, 4e-6)).isEqualTo(500_000);
        assertThat(UcxRunner.iterations(2, 1)).isEqualTo(UcxRunner.MIN_ITERATIONS);
        assertThat(UcxRunner.iterations(3600, 0)).isEqualTo(UcxRunner.MAX_ITERATIONS);
        assertThat(UcxRunner.warmupIterations(1, 4e-6)).isEqualTo(250_000);
        assertThat(UcxRunner.warmupIterations(0, 4e-6)).isZero();
        assertThat(UcxRunner.warmupIterations(0.001, 1)).isEqualTo(1);
        assertThat(UcxRunner.calibrationIterations(64)).isEqualTo(UcxRunner.MAX_CALIBRATION);
        assertThat(UcxRunner.calibrationIterations(16 << 10)).isEqualTo(4096);
        assertThat(UcxRunner.calibrationIterations(1 << 20)).isEqualTo(64);
        assertThat(UcxRunner.calibrationIterations(1 << 30)).isEqualTo(UcxRunner.MIN_CALIBRATION);
    }
}
