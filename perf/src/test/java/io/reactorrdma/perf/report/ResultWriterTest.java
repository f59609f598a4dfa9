package io.reactorrdma.perf.report;

import io.reactorrdma.perf.cli.PollMode;
import io.reactorrdma.perf.cli.Scenario;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.measure.Latencies;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class ResultWriterTest {

    @Test
    void csvHasEmptyFieldsWhereAFigureDoesNotApply() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ResultWriter w = new ResultWriter(new PrintStream(bytes, true, StandardCharsets.UTF_8), true);
        Histogram h = Latencies.newHistogram();
        h.recordValue(1500);
        h.recordValue(2500);
        w.header();
        w.row(new Result(Scenario.SEND_LAT, Transport.RDMA_LOOPBACK, 8, 2, h, Double.NaN, 1.25, 0.5, 0), PollMode.SPIN, 1);
        w.row(new Result(Scenario.WRITE_BW, Transport.MEMCPY, 1048576, 100, null, 1234.56, 3, Double.NaN, 0), PollMode.BLOCK, 2);
        String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\\R");
        assertThat(lines).hasSize(3);
        assertThat(lines[0]).isEqualTo(ResultWriter.CSV_HEADER)
                .startsWith("scenario,transport,size_bytes,ops,mean_us,p50_us,p99_us,p999_us,mib_per_s,client_cpu_us_per_op,"
                        + "server_cpu_us_per_op,poll,run,baseline,");
        assertThat(lines[1])
                .matches("send-lat,rdma-loopback,8,2,2\\.0\\d\\d,1\\.50\\d,2\\.50\\d,2\\.50\\d,,1\\.250,0\\.500,spin,1,,,,,,,,,");
        assertThat(lines[2]).isEqualTo("write-bw,memcpy,1048576,100,,,,,1234.6,3.000,,block,2,,,,,,,,,");
        for (String line : lines) {
            assertThat(line.split(",", -1)).hasSize(22);
        }
    }

    @Test
    void tableRowsNameTheirPollModeAndRun() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ResultWriter w = new ResultWriter(new PrintStream(bytes, true, StandardCharsets.UTF_8), false);
        w.header();
        w.row(new Result(Scenario.ECHO, Transport.TCP, 64, 7, null, 1, 2, 3, -1), PollMode.BACK_OFF, 3);
        String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\\R");
        assertThat(lines[0].split("\\s+")).startsWith("scenario", "transport", "poll", "run", "size", "ops");
        assertThat(lines[1].split("\\s+")).startsWith("echo", "tcp", "back-off", "3", "64", "7", "-");
    }

    @Test
    void figures() {
        assertThat(Result.mibPerSecond(1024, 1024, 1_000_000_000L)).isEqualTo(1.0);
        assertThat(Result.usPerOp(2_000, 2)).isEqualTo(1.0);
        assertThat(Result.usPerOp(-1, 2)).isNaN();
        assertThat(Result.usPerOp(5, 0)).isNaN();
    }
}
