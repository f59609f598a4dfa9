package io.reactorrdma.perf.report;

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
        w.row(new Result(Scenario.SEND_LAT, Transport.RDMA_LOOPBACK, 8, 2, h, Double.NaN, 1.25, 0.5, 0));
        w.row(new Result(Scenario.WRITE_BW, Transport.MEMCPY, 1048576, 100, null, 1234.56, 3, Double.NaN, 0));
        String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\\R");
        assertThat(lines).hasSize(3);
        assertThat(lines[0]).isEqualTo(ResultWriter.CSV_HEADER);
        assertThat(lines[1]).matches("send-lat,rdma-loopback,8,2,2\\.0\\d\\d,1\\.50\\d,2\\.50\\d,2\\.50\\d,,1\\.250,0\\.500");
        assertThat(lines[2]).isEqualTo("write-bw,memcpy,1048576,100,,,,,1234.6,3.000,");
        for (String line : lines) {
            assertThat(line.split(",", -1)).hasSize(11);
        }
    }

    @Test
    void figures() {
        assertThat(Result.mibPerSecond(1024, 1024, 1_000_000_000L)).isEqualTo(1.0);
        assertThat(Result.usPerOp(2_000, 2)).isEqualTo(1.0);
        assertThat(Result.usPerOp(-1, 2)).isNaN();
        assertThat(Result.usPerOp(5, 0)).isNaN();
    }
}
