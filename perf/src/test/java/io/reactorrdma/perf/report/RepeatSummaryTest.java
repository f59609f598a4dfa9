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
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** --repeat's arithmetic: medians of the runs, medians of the per-round ratios, the chart's median run, the median rows. */
class RepeatSummaryTest {

    /** A run whose round trips all take {@code p50Micros}, with the given throughput and CPU. */
    private static Result run(Transport t, double p50Micros, double mib, double cli, double srv) {
        Histogram h = Latencies.newHistogram();
        h.recordValueWithCount((long) (p50Micros * 1000), 100);
        return new Result(Scenario.ECHO, t, 64, 100, h, mib, cli, srv, -1);
    }

    @Test
    void medianOfOddAndEvenCountsSkipsNaN() {
        assertThat(RepeatSummary.median(new double[]{3, 1, 2})).isEqualTo(2);
        assertThat(RepeatSummary.median(new double[]{4, 1, 3, 2})).isEqualTo(2.5);
        assertThat(RepeatSummary.median(new double[]{Double.NaN, 5, 1})).isEqualTo(3);
        assertThat(RepeatSummary.median(new double[]{Double.NaN})).isNaN();
        assertThat(RepeatSummary.median(new double[0])).isNaN();
    }

    @Test
    void ratiosAreTheMedianOfEachRoundsRatioNotTheRatioOfMedians() {
        RepeatSummary s = new RepeatSummary(Transport.TCP, 3);
        // round 1: 10/100 = 0.1; round 2: 30/50 = 0.6; round 3: 20/25 = 0.8 -> median 0.6
        // (the ratio of the medians would be 20/50 = 0.4)
        s.add(Transport.RDMA_SHM, 1, run(Transport.RDMA_SHM, 10, 1, 2, 3));
        s.add(Transport.TCP, 1, run(Transport.TCP, 100, 1, 4, 4));
        s.add(Transport.RDMA_SHM, 2, run(Transport.RDMA_SHM, 30, 2, 2, 3));
        s.add(Transport.TCP, 2, run(Transport.TCP, 50, 1, 4, 4));
        s.add(Transport.RDMA_SHM, 3, run(Transport.RDMA_SHM, 20, 3, 2, 3));
        s.add(Transport.TCP, 3, run(Transport.TCP, 25, 1, 4, 4));
        List<RepeatSummary.Median> m = s.medians();
        assertThat(m).extracting(RepeatSummary.Median::transport).containsExactly(Transport.RDMA_SHM, Transport.TCP);
        RepeatSummary.Median shm = m.get(0);
        assertThat(shm.runs()).isEqualTo(3);
        assertThat(shm.baseline()).isEqualTo(Transport.TCP);
        assertThat(shm.figure(Figure.P50)).isCloseTo(20, within(0.05));
        assertThat(shm.ratio(Figure.P50)).isCloseTo(0.6, within(0.01));
        assertThat(shm.figure(Figure.MIB_PER_S)).isEqualTo(2);
        assertThat(shm.ratio(Figure.MIB_PER_S)).isEqualTo(2);
        assertThat(shm.ratio(Figure.CPU)).as("(2 + 3) / (4 + 4) each round").isEqualTo(5.0 / 8);
        assertThat(shm.ratio(Figure.OPS)).as("no ratio of ops").isNaN();
        assertThat(m.get(1).ratio(Figure.P99)).isEqualTo(1.0);
        assertThat(s.medianRun(Transport.RDMA_SHM).latency().getValueAtPercentile(50)).as("the run of median p50: round 3")
                .isBetween(19_900L, 20_100L);
        assertThat(s.roundOf(Transport.RDMA_SHM, s.medianRun(Transport.RDMA_SHM))).isEqualTo(3);
    }

    @Test
    void aFailedRunIsLeftOutOfMediansAndRatios() {
        RepeatSummary s = new RepeatSummary(Transport.TCP, 3);
        s.add(Transport.RDMA_SHM, 1, run(Transport.RDMA_SHM, 10, 1, 1, 1));
        s.add(Transport.TCP, 1, run(Transport.TCP, 20, 1, 1, 1));
        s.add(Transport.RDMA_SHM, 2, run(Transport.RDMA_SHM, 1000, 1, 1, 1));
        s.add(Transport.TCP, 2, null);
        s.add(Transport.RDMA_SHM, 3, null);
        s.add(Transport.TCP, 3, run(Transport.TCP, 40, 1, 1, 1));
        RepeatSummary.Median shm = s.medians().get(0);
        assertThat(shm.runs()).isEqualTo(2);
        assertThat(shm.figure(Figure.P50)).as("median of 10 and 1000").isCloseTo(505, within(1.0));
        assertThat(shm.ratio(Figure.P50)).as("only round 1 has both: 10 / 20").isCloseTo(0.5, within(0.01));
        assertThat(s.medianRun(Transport.RDMA_SHM).latency().getValueAtPercentile(50)).as("the lower of two").isLessThan(11_000L);
    }

    @Test
    void withoutTheBaselineThereAreNoRatios() {
        RepeatSummary s = new RepeatSummary(Transport.TCP, 2);
        s.add(Transport.RDMA_SHM, 1, null);
        s.add(Transport.RDMA_LOOPBACK, 1, run(Transport.RDMA_LOOPBACK, 10, 1, 1, 1));
        s.add(Transport.TCP, 1, null);
        assertThat(s.medians()).as("a transport without a run has no medians").hasSize(1);
        assertThat(s.medians().get(0).baseline()).isNull();
        assertThat(s.medians().get(0).ratio(Figure.P50)).isNaN();
        assertThat(s.medianRun(Transport.TCP)).isNull();
    }

    @Test
    void medianRowsCarryTheBaselineAndTheRatiosRunRowsDoNot() {
        RepeatSummary s = new RepeatSummary(Transport.TCP, 1);
        Result shm = run(Transport.RDMA_SHM, 10, 1, 2, 3);
        Result tcp = run(Transport.TCP, 40, 1, 4, 4);
        s.add(Transport.RDMA_SHM, 1, shm);
        s.add(Transport.TCP, 1, tcp);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ResultWriter w = new ResultWriter(new PrintStream(bytes, true, StandardCharsets.UTF_8), true);
        w.header();
        w.row(shm, PollMode.BACK_OFF, 1);
        w.header(); // a second poll mode: the CSV keeps one header
        w.medians(s, PollMode.BACK_OFF, 1);
        String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\\R");
        assertThat(lines).hasSize(4);
        List<String> header = List.of(lines[0].split(","));
        String[] raw = lines[1].split(",", -1);
        String[] median = lines[2].split(",", -1);
        assertThat(raw).hasSize(header.size());
        assertThat(median).hasSize(header.size());
        assertThat(raw[header.indexOf("poll")]).isEqualTo("back-off");
        assertThat(raw[header.indexOf("run")]).isEqualTo("1");
        assertThat(raw[header.indexOf("baseline")]).isEmpty();
        assertThat(raw[header.indexOf("p50_x")]).isEmpty();
        assertThat(median[header.indexOf("run")]).isEqualTo(ResultWriter.MEDIAN);
        assertThat(median[header.indexOf("transport")]).isEqualTo("rdma-shm");
        assertThat(median[header.indexOf("baseline")]).isEqualTo("tcp");
        assertThat(Double.parseDouble(median[header.indexOf("p50_x")])).isCloseTo(0.25, within(0.002));
        assertThat(median[header.indexOf("cpu_x")]).isEqualTo("0.625");
        assertThat(median[header.indexOf("p50_us")]).isEqualTo(raw[header.indexOf("p50_us")]);
        assertThat(lines[3].split(",", -1)[header.indexOf("p50_x")]).isEqualTo("1.000");
    }
}
