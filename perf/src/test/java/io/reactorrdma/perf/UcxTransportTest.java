package io.reactorrdma.perf;

import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.report.ResultWriter;
import io.reactorrdma.perf.ucx.UcxPerftest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The ucx transport in a whole invocation when ucx_perftest is missing: skipped with a note, the others run, status unchanged. */
@Timeout(120)
class UcxTransportTest {

    @TempDir
    Path dir;

    @Test
    void withoutUcxPerftestTheOtherTransportsRun() {
        PerfOptions o = PerfOptions.parse(new String[]{"echo", "--size", "64", "--transports", "ucx,rdma-loopback", "--repeat", "2",
            "--duration", "0.2", "--warmup", "0.1", "--csv"});
        assertThat(o.transports).containsExactly(Transport.UCX, Transport.RDMA_LOOPBACK);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int failed = ScenarioRounds.run(o, new PrintStream(bytes, true, StandardCharsets.UTF_8),
                UcxPerftest.at(dir.resolve("ucx_perftest")));
        assertThat(failed).as("a missing ucx_perftest is no failure").isZero();
        List<String> lines = Arrays.asList(bytes.toString(StandardCharsets.UTF_8).split("\\R"));
        assertThat(lines.get(0)).isEqualTo(ResultWriter.CSV_HEADER);
        assertThat(lines.subList(1, lines.size()).stream().map(l -> l.split(",")[1]).collect(Collectors.toList()))
                .containsExactly("rdma-loopback", "rdma-loopback", "rdma-loopback");
        String median = lines.get(3);
        assertThat(median.split(",", -1)[13]).as("the baseline: ucx's place taken by the transport that ran").isEqualTo("rdma-loopback");
    }

    @Test
    void ucxAloneWithoutUcxPerftestRunsNothingAndFailsNothing() {
        PerfOptions o = PerfOptions.parse(new String[]{"rsocket-stream", "--transports", "ucx", "--repeat", "2", "--csv"});
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertThat(ScenarioRounds.run(o, new PrintStream(bytes, true, StandardCharsets.UTF_8), UcxPerftest.at(dir.resolve("nothing"))))
                .isZero();
        assertThat(bytes.toString(StandardCharsets.UTF_8).trim()).isEqualTo(ResultWriter.CSV_HEADER);
    }

    @Test
    void ucxOnlyWhenAskedFor() {
        assertThat(PerfOptions.parse(new String[]{"echo"}).transports).doesNotContain(Transport.UCX);
        assertThat(PerfOptions.parse(new String[]{"rsocket-stream"}).transports).doesNotContain(Transport.UCX);
        assertThat(Usage.text()).contains("ucx", "ucx_perftest", "UCX_TLS=sm,self");
    }
}
