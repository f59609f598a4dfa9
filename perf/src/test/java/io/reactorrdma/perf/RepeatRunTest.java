package io.reactorrdma.perf;

import io.reactorrdma.tools.cli.ExitStatus;
import io.reactorrdma.perf.report.Figure;
import io.reactorrdma.perf.report.ResultWriter;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Whole command lines with tiny phases: {@code --repeat 3} of echo over rdma-loopback and tcp prints three interleaved
 * runs per transport and medians that are the medians of those runs' printed figures; {@code --poll back-off,spin} runs
 * once per mode, the library's default first, and each row names its mode; --chart draws the median runs, a file per mode.
 */
@Timeout(120)
class RepeatRunTest {

    /** One CSV row by column name. */
    private record Row(Map<String, String> cells) {
        String get(String column) {
            assertThat(cells).containsKey(column);
            return cells.get(column);
        }

        double number(String column) {
            return Double.parseDouble(get(column));
        }
    }

    @TempDir
    Path dir;

    private static List<Row> runCsv(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int status = PerfMain.run(args, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(status).as("exit status; standard output:%n%s", out).isEqualTo(ExitStatus.OK);
        String[] lines = out.split("\\R");
        assertThat(lines[0]).isEqualTo(ResultWriter.CSV_HEADER);
        List<String> header = List.of(lines[0].split(","));
        List<Row> rows = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            String[] cells = lines[i].split(",", -1);
            assertThat(cells).as(lines[i]).hasSize(header.size());
            Map<String, String> m = new java.util.HashMap<>();
            for (int c = 0; c < cells.length; c++) {
                m.put(header.get(c), cells[c]);
            }
            rows.add(new Row(m));
        }
        return rows;
    }

    @Test
    void repeatPrintsInterleavedRunsAndTheirMedians() {
        List<Row> rows = runCsv("echo", "--size", "64", "--transports", "rdma-loopback,tcp", "--repeat", "3",
                "--duration", "0.2", "--warmup", "0.1", "--csv");
        List<Row> runs = rows.stream().filter(r -> !r.get("run").equals(ResultWriter.MEDIAN)).collect(Collectors.toList());
        List<Row> medians = rows.stream().filter(r -> r.get("run").equals(ResultWriter.MEDIAN)).collect(Collectors.toList());
        assertThat(runs).extracting(r -> r.get("transport") + "#" + r.get("run"))
                .as("interleaved: t1, t2, t1, t2, ...")
                .containsExactly("rdma-loopback#1", "tcp#1", "rdma-loopback#2", "tcp#2", "rdma-loopback#3", "tcp#3");
        assertThat(rows).allSatisfy(r -> assertThat(r.get("poll")).isEqualTo("back-off"));
        assertThat(runs).allSatisfy(r -> {
            assertThat(r.get("baseline")).isEmpty();
            assertThat(r.get("p50_x")).isEmpty();
        });
        assertThat(medians).extracting(r -> r.get("transport")).containsExactly("rdma-loopback", "tcp");
        Map<String, Row> median = medians.stream().collect(Collectors.toMap(r -> r.get("transport"), Function.identity()));

        for (String t : List.of("rdma-loopback", "tcp")) {
            List<Row> mine = runs.stream().filter(r -> r.get("transport").equals(t)).collect(Collectors.toList());
            for (Figure f : Figure.COLUMNS) {
                String column = f.csvName();
                // three runs: the median is the middle run's figure, printed the same way
                List<Row> sorted = new ArrayList<>(mine);
                sorted.sort(Comparator.comparingDouble(r -> r.number(column)));
                assertThat(median.get(t).get(column)).as("%s's median %s of %s", t, column,
                        mine.stream().map(r -> r.get(column)).collect(Collectors.toList())).isEqualTo(sorted.get(1).get(column));
            }
            assertThat(median.get(t).get("baseline")).isEqualTo("tcp");
        }

        List<Row> loop = runs.stream().filter(r -> r.get("transport").equals("rdma-loopback")).collect(Collectors.toList());
        List<Row> tcp = runs.stream().filter(r -> r.get("transport").equals("tcp")).collect(Collectors.toList());
        List<Figure> checked = new ArrayList<>();
        ratio:
        for (Figure f : Figure.RATIOS) {
            // the per-run ratios again, from the printed (rounded) figures: each ratio is off by at most the rounding
            double[] ratios = new double[3];
            double worst = 0;
            for (int i = 0; i < 3; i++) {
                double[] a = value(loop.get(i), f);
                double[] b = value(tcp.get(i), f);
                if (b[0] - b[1] <= 0) {
                    continue ratio; // printed as 0.0 (64 B echoes on a busy host: MiB/s): no ratio can be recomputed from it
                }
                ratios[i] = a[0] / b[0];
                worst = Math.max(worst, (a[0] + a[1]) / Math.max(1e-12, b[0] - b[1]) - ratios[i]);
                worst = Math.max(worst, ratios[i] - Math.max(0, a[0] - a[1]) / (b[0] + b[1]));
            }
            Arrays.sort(ratios);
            double printed = median.get("rdma-loopback").number(f.ratioName());
            assertThat(Math.abs(printed - ratios[1])).as("%s: printed median ratio %s, from the runs %s (rounding allows %s)",
                    f.ratioName(), printed, Arrays.toString(ratios), worst).isLessThanOrEqualTo(worst + 0.0005 + 1e-9);
            assertThat(median.get("tcp").get(f.ratioName())).as("the baseline against itself").isEqualTo("1.000");
            checked.add(f);
        }
        assertThat(checked).contains(Figure.MEAN, Figure.P50, Figure.P99, Figure.P999, Figure.CLIENT_CPU, Figure.SERVER_CPU, Figure.CPU);
    }

    /** A row's figure and how far its printing may have rounded it: client + server for {@link Figure#CPU}. */
    private static double[] value(Row r, Figure f) {
        if (f == Figure.CPU) {
            double[] c = value(r, Figure.CLIENT_CPU);
            double[] s = value(r, Figure.SERVER_CPU);
            return new double[]{c[0] + s[0], c[1] + s[1]};
        }
        String v = r.get(f.csvName());
        int dot = v.indexOf('.');
        int decimals = dot < 0 ? 0 : v.length() - dot - 1;
        return new double[]{Double.parseDouble(v), 0.5 * Math.pow(10, -decimals)};
    }

    @Test
    void backOffRunsFirstAndEveryRowNamesItsMode() {
        List<Row> rows = runCsv("echo", "--transports", "rdma-loopback", "--poll", "back-off,spin", "--repeat", "2", "--duration", "0.2",
                "--warmup", "0.1", "--csv", "--chart", dir.resolve("loop.png").toString());
        assertThat(rows).extracting(r -> r.get("poll") + "#" + r.get("run"))
                .containsExactly("back-off#1", "back-off#2", "back-off#median", "spin#1", "spin#2", "spin#median");
        assertThat(rows).allSatisfy(r -> {
            assertThat(r.get("transport")).isEqualTo("rdma-loopback");
            assertThat(r.number("ops")).isPositive();
        });
        for (int mode = 0; mode < 2; mode++) {
            // two runs: the median is their mean
            double p50 = (rows.get(3 * mode).number("p50_us") + rows.get(3 * mode + 1).number("p50_us")) / 2;
            assertThat(rows.get(3 * mode + 2).number("p50_us")).isCloseTo(p50, within(0.0011));
            assertThat(rows.get(3 * mode + 2).get("baseline")).as("the only transport is its own baseline").isEqualTo("rdma-loopback");
        }
        assertThat(dir.resolve("loop-back-off.png")).as("one chart per poll mode, of the median run").isNotEmptyFile();
        assertThat(dir.resolve("loop-spin.png")).isNotEmptyFile();
        assertThat(dir.resolve("loop.png")).doesNotExist();
    }
}
