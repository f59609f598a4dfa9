package io.reactorrdma.perf.report;

import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.Scenario;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.tools.cli.UsageException;
import io.reactorrdma.perf.measure.Latencies;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** --chart: parsed, and a PNG drawn from the results that have latencies. */
class LatencyChartTest {

    @Test
    void chartOptionNeedsAPngName() {
        assertThat(PerfOptions.parse(new String[]{"rsocket-rr", "--chart", "docs/images/x.png"}).chart)
                .isEqualTo(Path.of("docs/images/x.png"));
        assertThat(PerfOptions.parse(new String[]{"rsocket-rr"}).chart).isNull();
        assertThatThrownBy(() -> PerfOptions.parse(new String[]{"rsocket-rr", "--chart", "x.jpg"})).isInstanceOf(UsageException.class)
                .hasMessageContaining(".png");
    }

    @Test
    void drawsOneLinePerResultWithLatencies(@TempDir Path dir) throws Exception {
        Histogram h = Latencies.newHistogram();
        for (int i = 1; i <= 10_000; i++) {
            h.recordValue(1000 + i);
        }
        Result rr = new Result(Scenario.RSOCKET_RR, Transport.LOCAL, 64, 10_000, h, 1, 1, Double.NaN, -1);
        Result stream = new Result(Scenario.RSOCKET_STREAM, Transport.TCP, 64, 10, null, 1, 1, 1, -1);
        Path png = dir.resolve("sub/chart.png");
        LatencyChart.write(png, "test", List.of(rr, stream));
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(1000);

        Path none = dir.resolve("none.png");
        LatencyChart.write(none, "test", List.of(stream));
        assertThat(Files.exists(none)).as("nothing to draw, nothing written").isFalse();
    }
}
