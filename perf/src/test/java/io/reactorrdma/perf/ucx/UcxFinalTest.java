package io.reactorrdma.perf.ucx;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code Final:} line, read from real ucx_perftest output (UCX 1.13.1, Debian's ucx-utils 1.13.1-1, captured on the
 * development host with {@code UCX_TLS=sm,self}: server {@code ucx_perftest -t T -s S -n N -w W -p P}, client
 * {@code ucx_perftest 127.0.0.1} with the same options; the host was busy, so the figures are only text to parse).
 */
class UcxFinalTest {

    /** A captured output under src/test/resources/io/reactorrdma/perf/ucx. */
    static List<String> captured(String name) {
        try (InputStream in = UcxFinalTest.class.getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines().collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void tagLatency64Bytes() {
        // Final:                200000      0.165     5.104    59.259       11.96       1.03      195928       16875
        UcxFinal f = UcxFinal.parse(captured("tag_lat-64-client.txt"));
        assertThat(f.iterations()).isEqualTo(200_000);
        assertThat(f.percentileRank()).isEqualTo(50.0);
        assertThat(f.percentileUs()).isEqualTo(0.165);
        assertThat(f.averageUs()).isEqualTo(5.104);
        assertThat(f.overallUs()).isEqualTo(59.259);
        assertThat(f.bandwidthAverage()).isEqualTo(11.96);
        assertThat(f.bandwidthOverall()).isEqualTo(1.03);
        assertThat(f.messageRateAverage()).isEqualTo(195_928);
        assertThat(f.messageRateOverall()).isEqualTo(16_875);
    }

    @Test
    void tagLatencyOneMebibyte() {
        UcxFinal f = UcxFinal.parse(captured("tag_lat-1m-client.txt"));
        assertThat(f.iterations()).isEqualTo(3000);
        assertThat(f.percentileUs()).isEqualTo(1152.941);
        assertThat(f.overallUs()).isEqualTo(3986.812);
        assertThat(f.bandwidthOverall()).isEqualTo(250.83);
    }

    @Test
    void tagBandwidthOneMebibyteSkipsTheProgressLines() {
        // 21 "[thread 0]" progress lines (one a second) come before it
        UcxFinal f = UcxFinal.parse(captured("tag_bw-1m-client.txt"));
        assertThat(f.iterations()).isEqualTo(20_000);
        assertThat(f.overallUs()).isEqualTo(1226.254);
        assertThat(f.bandwidthOverall()).isEqualTo(815.49);
        assertThat(f.messageRateOverall()).isEqualTo(815);
    }

    @Test
    void theRankComesFromTheHeading() {
        UcxFinal f = UcxFinal.parse(List.of(
                "|    Stage     | # iterations | 99.9%ile | average | overall |  average |  overall |  average  |  overall  |",
                "Final:                  1000      3.000     1.000     1.500       40.69      40.69      666667      666667"));
        assertThat(f.percentileRank()).isEqualTo(99.9);
        assertThat(f.percentileUs()).isEqualTo(3.0);
    }

    /**
     * The columns of the last report interval divide by that interval, which can be empty at the end of a run:
     * ucx_perftest then prints {@code inf} (latency) and zeros (bandwidth, rate). The tool uses none of them, so the
     * line still reads (captured from a 1 MiB tag_lat run with -R 99).
     */
    @Test
    void anEmptyLastIntervalLeavesItsColumnsOutNotTheRun() {
        UcxFinal f = UcxFinal.parse(List.of(
                "|    Stage     | # iterations | 99.0%ile | average | overall |  average |  overall |  average  |  overall  |",
                "Final:                 29948     68.711       inf    50.018        0.00   19992.74           0       19993"));
        assertThat(f.iterations()).isEqualTo(29_948);
        assertThat(f.percentileUs()).isEqualTo(68.711);
        assertThat(f.overallUs()).isEqualTo(50.018);
        assertThat(f.bandwidthOverall()).isEqualTo(19992.74);
        assertThat(f.averageUs()).as("not reported: the last interval was empty").isNaN();
        assertThatThrownBy(() -> UcxFinal.parse(List.of("Final:  10  0.5  0.6  inf  1.0  1.0  9  9")))
                .as("the whole run's average must be a figure").isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("column 4 'inf' is not a number");
    }

    @Test
    void outputWithoutAFinalLineIsRefused() {
        assertThatThrownBy(() -> UcxFinal.parse(captured("refused-client.txt")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("no 'Final:' line");
        assertThatThrownBy(() -> UcxFinal.parse(captured("tag_lat-64-server.txt")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("no 'Final:' line");
    }

    @Test
    void aMalformedFinalLineIsRefused() {
        assertThatThrownBy(() -> UcxFinal.parse(List.of("Final:  1000  0.5  0.6  0.7  1.0  1.0  9")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("has 7 columns, not 8");
        assertThatThrownBy(() -> UcxFinal.parse(List.of("Final:  1,000  0.5  0.6  0.7  1.0  1.0  9  9")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("column 1 '1,000' is not a number");
        assertThatThrownBy(() -> UcxFinal.parse(List.of("Final:  0  0.5  0.6  0.7  1.0  1.0  9  9")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no whole number of iterations");
        assertThatThrownBy(() -> UcxFinal.parse(List.of("Final:  10  nan  0.6  0.7  1.0  1.0  9  9")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("column 2 'nan' is not a number");
    }
}
