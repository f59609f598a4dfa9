package io.reactorrdma.incast.cli;

import io.reactorrdma.tools.cli.ExitStatus;
import io.reactorrdma.incast.report.IncastChart;
import io.reactorrdma.incast.report.IncastTable;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * incast-sim end to end through its entry point: a tiny sweep (8 trainers x 4 servers, 2 ms) gives one CSV row per
 * arm under the stable columns, a PNG and the recommendation; one seed gives one output; bad input exits 2.
 */
class IncastSimCommandTest {

    @TempDir
    Path dir;

    private record Run(int status, String out, String err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = IncastSimCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static final String[] TINY = {"--trainers", "8", "--servers", "4", "--topology", "one-switch", "--duration", "2ms",
            "--compute", "100us", "--window", "8k,64k,off", "--seed", "5"};

    private static String[] tiny(String... more) {
        List<String> args = new ArrayList<>(List.of(TINY));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    @Test
    void aTinySweepWritesTheCsvRowsAChartAndTheRecommendation() throws Exception {
        Path png = dir.resolve("incast.png");
        Run r = run(tiny("--csv", "--chart", png.toString()));
        assertThat(r.status()).as(r.err()).isEqualTo(ExitStatus.OK);
        String[] lines = r.out().split("\\R");
        assertThat(lines[0]).isEqualTo(IncastTable.CSV_HEADER);
        assertThat(lines).hasSize(1 + 4);
        List<String> header = List.of(IncastTable.CSV_HEADER.split(","));
        List<String> arms = new ArrayList<>();
        int recommended = 0;
        for (int i = 1; i < lines.length; i++) {
            String[] cells = lines[i].split(",", -1);
            assertThat(cells).hasSize(header.size());
            arms.add(cells[0]);
            assertThat(Long.parseLong(cells[header.indexOf("pushes")])).as(lines[i]).isPositive();
            assertThat(Double.parseDouble(cells[header.indexOf("goodput_gbps")])).isPositive();
            recommended += Integer.parseInt(cells[header.indexOf("recommended")]);
        }
        assertThat(arms).containsExactly("pfc", "dcqcn", "dcqcn+w8k", "dcqcn+w64k");
        assertThat(recommended).isEqualTo(1);
        java.awt.image.BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(IncastChart.DEFAULT_PANEL_WIDTH);
        assertThat(image.getHeight()).isEqualTo(2 * IncastChart.DEFAULT_PANEL_HEIGHT);
        assertThat(r.err().strip()).as("the table goes to standard error, the recommendation last")
                .contains("arm", "p99 us").endsWith(r.err().strip().lines().reduce((a, b) -> b).orElseThrow());
        assertThat(r.err().strip().lines().filter(l -> l.startsWith("recommended window: ")).count()).isEqualTo(1);
    }

    @Test
    void oneSeedGivesOneOutput() {
        Run a = run(tiny("--arms", "pfc,window", "--window", "16k"));
        Run b = run(tiny("--arms", "pfc,window", "--window", "16k"));
        assertThat(a.status()).as(a.err()).isEqualTo(ExitStatus.OK);
        assertThat(withoutWallTime(a.out())).isEqualTo(withoutWallTime(b.out()));
        assertThat(a.out().strip().lines().reduce((x, y) -> y).orElseThrow()).startsWith("recommended window: 16k");
        Run two = run(tiny("--arms", "pfc", "--iterations", "2", "--csv"));
        assertThat(two.out().strip().lines().skip(1).findFirst().orElseThrow()).as("8 trainers x 4 servers x 2 iterations")
                .startsWith("pfc,pfc,,64,");
    }

    @Test
    void helpAndBadInput() {
        Run help = run("--help");
        assertThat(help.status()).isEqualTo(ExitStatus.OK);
        assertThat(help.out()).contains("usage: java -jar incast-sim.jar", "java -jar reactor-rdma-perf.jar incast-sim", "--window",
                IncastTable.CSV_HEADER);
        Run bad = run("--window", "64x");
        assertThat(bad.status()).isEqualTo(ExitStatus.USAGE);
        assertThat(bad.err()).startsWith("error: bad --window size '64x'");
        Run fragment = run("--fragment", "1k");
        assertThat(fragment.status()).isEqualTo(ExitStatus.USAGE);
        assertThat(fragment.err()).startsWith("error: bad --fragment 1k: ").contains("fragmentSize");
        assertThat(bad.out()).isEmpty();
    }

    /** The table with the wall-clock columns (wall s, Mev/s: the last two of the first table) cut off. */
    private static String withoutWallTime(String table) {
        List<String> out = new ArrayList<>();
        boolean first = true;
        for (String line : table.split("\\R")) {
            if (line.isBlank()) {
                first = false;
            }
            out.add(first && !line.isBlank() ? line.replaceAll("\\s+\\S+\\s+\\S+$", "") : line);
        }
        return String.join("\n", out);
    }
}
