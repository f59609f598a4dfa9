package io.reactorrdma.perf.jmh;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.perf.measure.HostLoad;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The allocator benchmark's pieces, without JMH: size tables, the allocators under test, the report. */
class AllocatorBenchmarkTest {

    @Test
    void sizeTablesCoverTheirRangesAndRepeat() {
        int[] small = AllocatorBenchmark.sizesFor("small", 0);
        assertThat(small).hasSize(AllocatorBenchmark.SIZE_TABLE);
        assertThat(Arrays.stream(small).min().getAsInt()).isGreaterThanOrEqualTo(16).isLessThan(64);
        assertThat(Arrays.stream(small).max().getAsInt()).isLessThanOrEqualTo(16384).isGreaterThan(16300);
        assertThat(Arrays.stream(small).average().getAsDouble()).isBetween(7900.0, 8500.0); // uniform

        int[] large = AllocatorBenchmark.sizesFor("large", 3);
        assertThat(Arrays.stream(large).min().getAsInt()).isGreaterThanOrEqualTo(65536);
        assertThat(Arrays.stream(large).max().getAsInt()).isLessThanOrEqualTo(1 << 20);
        double mean = Arrays.stream(large).average().getAsDouble();
        assertThat(mean).isBetween(175_000.0, 195_000.0); // 64 KiB + 960 KiB / 8
        int[] sorted = large.clone();
        Arrays.sort(sorted);
        assertThat(sorted[sorted.length / 2]).isLessThan((int) mean); // falls off: median below mean

        assertThat(AllocatorBenchmark.sizesFor("large", 3)).isEqualTo(large);
        assertThat(AllocatorBenchmark.sizesFor("large", 4)).isNotEqualTo(large);
        assertThatThrownBy(() -> AllocatorBenchmark.sizesFor("huge", 0)).hasMessageContaining("small or large");
    }

    @Test
    void everyAllocatorAllocatesTouchesAndFrees() {
        List<String> kinds = new ArrayList<>(AllocatorSubject.KINDS);
        kinds.addAll(AllocatorSubject.EXTRA_KINDS);
        for (String kind : kinds) {
            try (AllocatorSubject s = AllocatorSubject.create(kind)) {
                List<Object> live = new ArrayList<>();
                for (int size : new int[]{16, 1000, 16384, 65536, 300_000, 1 << 20}) {
                    Object b = s.allocate(size);
                    if (b instanceof ByteBuf) {
                        ByteBuf buf = (ByteBuf) b;
                        assertThat(buf.isDirect()).as(kind).isTrue();
                        assertThat(buf.capacity()).as(kind).isEqualTo(size);
                        assertThat(buf.getInt(0)).isEqualTo(size);
                        assertThat(buf.getByte(size - 1)).isEqualTo((byte) 1);
                    } else {
                        ByteBuffer buf = (ByteBuffer) b;
                        assertThat(buf.isDirect()).isTrue();
                        assertThat(buf.getInt(0)).isEqualTo(size);
                    }
                    live.add(b);
                }
                if (!kind.equals("jdk-direct")) {
                    assertThat(s.ownBytes()).as(kind).isGreaterThan(0);
                }
                for (Object b : live) {
                    s.free(b);
                    if (b instanceof ByteBuf) {
                        assertThat(((ByteBuf) b).refCnt()).isZero();
                    }
                }
            }
        }
        try (AllocatorSubject r = AllocatorSubject.create("registered")) {
            r.free(r.allocate(100));
            assertThat(r.ownPeakBytes()).isGreaterThan(0);
            assertThat(r.sampledOwnBytes()).isEqualTo(-1);
        }
        assertThatThrownBy(() -> AllocatorSubject.create("tcmalloc")).hasMessageContaining("registered");
    }

    @Test
    void hostLoadReadsProc() {
        HostLoad.Reading a = HostLoad.read();
        if (a != null) { // Linux
            double others = HostLoad.othersCores(a, HostLoad.read());
            assertThat(others).isGreaterThanOrEqualTo(-1);
            assertThat(HostLoad.sampleOthers(50)).isBetween(0.0, (double) Runtime.getRuntime().availableProcessors() + 1);
        }
        assertThat(HostLoad.othersCores(null, a)).isEqualTo(-1);
    }

    @Test
    void reportOptions() {
        AllocatorReportOptions o =
                AllocatorReportOptions.parse(new String[]{"--quick", "--threads", "1,4", "--allocators=registered,netty-pooled"});
        assertThat(o.quick).isTrue();
        assertThat(o.threads).containsExactly(1, 4);
        assertThat(o.allocators).containsExactly("registered", "netty-pooled");
        assertThat(o.workloads).containsExactly("small", "large");
        AllocatorReportOptions d = AllocatorReportOptions.parse(new String[]{"--warmup", "2:500", "--measure=3:700"});
        assertThat(d.warmupIterations).isEqualTo(2);
        assertThat(d.measurementMillis).isEqualTo(700);
        AllocatorReportOptions q = AllocatorReportOptions.parse(new String[]{"--forks", "3", "--quick"});
        assertThat(q.forks).as("an explicit value wins over --quick's").isEqualTo(3);
        assertThat(q.measurementMillis).isEqualTo(300);
        assertThatThrownBy(() -> AllocatorReportOptions.parse(new String[]{"--threads", "0"})).hasMessageContaining("--threads");
        assertThatThrownBy(() -> AllocatorReportOptions.parse(new String[]{"--allocators", "x"})).hasMessageContaining("unknown allocator");
        assertThatThrownBy(() -> AllocatorReportOptions.parse(new String[]{"--measure", "3"})).hasMessageContaining("ITERATIONS:MILLIS");
        assertThatThrownBy(() -> AllocatorReportOptions.parse(new String[]{"--bogus"})).hasMessageContaining("Unknown option: '--bogus'");
    }

    @Test
    void reportTablesRatiosAndCharts(@TempDir Path dir) throws Exception {
        System.setProperty("java.awt.headless", "true");
        AllocatorReportOptions o =
                AllocatorReportOptions.parse(new String[]{"--threads", "1,2", "--allocators",
                "registered,netty-pooled,jdk-direct,netty-adaptive"});
        List<AllocatorReport.Cell> cells = new ArrayList<>();
        for (String w : o.workloads) {
            for (int t : o.threads) {
                cells.add(new AllocatorReport.Cell("registered", w, t, 2e6 * t, 1e5, 1.9e6 * t, 2.1e6 * t, 30L << 20, 24L << 20, 0.0, ""));
                cells.add(new AllocatorReport.Cell("netty-pooled", w, t, 1e6 * t, 1e5, 0.9e6 * t, 1.1e6 * t,
                        20L << 20, 20L << 20, 0.5, ""));
                cells.add(new AllocatorReport.Cell("jdk-direct", w, t, 1e4, Double.NaN, 1e4, 1e4, 500L << 20, -1, 0.0, ""));
                cells.add(new AllocatorReport.Cell("netty-adaptive", w, t, Double.NaN, Double.NaN, Double.NaN, Double.NaN, -1, -1, 0,
                        "FAILED: OutOfMemoryError: Cannot reserve"));
            }
        }
        String md = AllocatorReport.markdown(cells, o);
        assertThat(md).contains("| registered | 2.00 ± 0.10 | 4.00 ± 0.10 |");
        assertThat(md).contains("**2.00×** ✅");
        assertThat(md).contains("| registered's slowest iteration / netty-pooled's fastest | 1.73× | 1.73× |");
        assertThat(md).contains("| netty-pooled | 1.00 ± 0.10 ⚠ |").contains("4 of 16 cells");
        // peak: registered's own 24 MiB against netty-pooled's 20 MiB direct = 1.20×; direct/direct 1.50×
        assertThat(md).contains("| registered | 24.0 (30.0) | 24.0 (30.0) |");
        assertThat(md).contains("**1.20×** (1.50×) ✅");
        assertThat(md).contains("| netty-adaptive | failed† | failed† |")
                .contains("† netty-adaptive, large, 2 threads: FAILED: OutOfMemoryError");
        assertThat(AllocatorReport.csv(cells).lines()).hasSize(cells.size() + 1);

        Path ops = dir.resolve("ops.png");
        Path mem = dir.resolve("mem.png");
        AllocatorReport.charts(cells, o, ops, mem);
        assertThat(Files.size(ops)).isGreaterThan(1000);
        assertThat(Files.readAllBytes(mem)).startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
    }
}
