package io.reactorrdma.examples.ps.demo;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo with {@code --quick} (2 shards x 2 replicas as child processes, 2 s per arm) runs to
 * completion, exits 0, and leaves a report with every table (no failed request), the four charts
 * and the CSV; no shard process and no shm directory outlive it.
 */
class DemoQuickTest {

    private static final Path SHM = Path.of("/dev/shm");

    @TempDir
    Path dir;

    @AfterEach
    void killLeftovers() {
        // a failed run must not leave shard JVMs behind
        ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly);
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS) // a safety net for a hung run, not a performance bound
    void quickDemoCompletesWithNoFailedRequestAndWritesTheReport() throws IOException {
        Path out = dir.resolve("report");
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        long t0 = System.nanoTime();
        int status;
        try (PrintStream ps = new PrintStream(console, true, StandardCharsets.UTF_8)) {
            status = new DemoRun(DemoOptions.parse(List.of("--quick", "--duration", "2s", "--out", out.toString())), ps, false).run();
        }
        String printed = console.toString(StandardCharsets.UTF_8);
        System.out.println(printed);
        System.out.printf("DemoQuickTest: the demo took %.1f s%n", (System.nanoTime() - t0) / 1e9);

        assertThat(status).as(printed).isZero();
        assertThat(printed).contains("[1/11] starting 2 shards x 2 replicas", "Every phase completed with 0 failed user requests.");

        String report = Files.readString(out.resolve(DemoReport.REPORT));
        assertThat(report).doesNotContain("FAILED", "n/a |", "not seen")
                .contains("## Inference", "| RDMA ", "| TCP ", "| the paper   | -35.7 %", "-43.7 %", "-10.7 %")
                .contains("## Training", "| rdma, window on ", "| rdma, window off ", "| tcp ", "-74.0 %", "no switch")
                .contains("## Recovery", "shard 0 replica 1 (pid ")
                .contains("Host at the start:", "load average", "Command: `java -jar examples/ps-demo/target/ps-demo.jar demo --quick");
        for (String chart : List.of(DemoReport.CHART_FETCH_CDF, DemoReport.CHART_PUSH, DemoReport.CHART_RECOVERY,
                DemoReport.CHART_MEMORY)) {
            Path png = out.resolve(chart);
            assertThat(png).exists();
            byte[] head = Arrays.copyOf(Files.readAllBytes(png), 8);
            assertThat(head).as(chart + " is a PNG").startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
            assertThat(report).contains("](" + chart + ")");
        }

        List<String> csv = Files.readAllLines(out.resolve(DemoReport.FIGURES));
        assertThat(csv.get(0)).isEqualTo("phase,arm,metric,value,unit");
        assertThat(csv).contains("inference,rdma,failed,0,requests", "inference,tcp,failed,0,requests",
                "training,\"rdma, window on\",failed,0,steps", "training,\"rdma, window off\",failed,0,steps",
                "training,tcp,failed,0,steps",
                "recovery,rdma,failed,0,requests");
        assertThat(value(csv, "inference,rdma,requests,")).isPositive();
        assertThat(value(csv, "inference,tcp,requests,")).isPositive();
        assertThat(value(csv, "recovery,rdma,requests,")).isPositive();
        assertThat(value(csv, "recovery,rdma,ejections,")).isPositive();
        assertThat(value(csv, "memory,demo_jvm,registered_peak,")).isPositive();
        // context switches from /proc (Linux): the I/O threads of both sides switch during a round
        for (String arm : List.of("rdma", "tcp")) {
            assertThat(value(csv, "inference," + arm + ",shard_io_switches_per_fetch,")).as(arm).isPositive();
            assertThat(value(csv, "inference," + arm + ",ranker_io_switches_per_fetch,")).as(arm).isPositive();
            assertThat(value(csv, "inference," + arm + ",shard_switches,"))
                    .as(arm + ": all the shards' threads switch more than their I/O threads")
                    .isGreaterThan(value(csv, "inference," + arm + ",shard_io_switches,"));
        }
        assertThat(report).contains("shard I/O switches/fetch", "shard switches/req");
        // each trainer's connections share one engine per replica: the 16 KiB window holds pushes back
        assertThat(value(csv, "training,\"rdma, window on\",window_stalls,")).as("the window binds").isPositive();

        assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive)).as("shard processes left running").isEmpty();
        assertThat(demoShmDirs()).as("this demo's shm directory left behind").isEmpty();
    }

    private static double value(List<String> csv, String prefix) {
        String line = csv.stream().filter(l -> l.startsWith(prefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no figure " + prefix + " in " + csv));
        return Double.parseDouble(line.substring(prefix.length(), line.lastIndexOf(',')));
    }

    /** The shm directories of demos run in this JVM: ps-demo-<our pid>-*. */
    private static Set<Path> demoShmDirs() throws IOException {
        if (!Files.isDirectory(SHM)) {
            return Set.of();
        }
        String ours = "ps-demo-" + ProcessHandle.current().pid() + "-";
        try (Stream<Path> s = Files.list(SHM)) {
            return s.filter(p -> p.getFileName().toString().startsWith(ours)).collect(Collectors.toSet());
        }
    }
}
