package io.reactorrdma.perf.ucx;

import io.reactorrdma.perf.cli.PerfException;
import io.reactorrdma.perf.cli.PerfOptions;
import io.reactorrdma.perf.cli.Transport;
import io.reactorrdma.perf.report.Figure;
import io.reactorrdma.perf.report.Result;
import io.reactorrdma.perf.ucx.UcxPerftest.Mode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Running ucx_perftest: without it (a path where there is none), with shell scripts standing in for it (failures,
 * output it cannot read, a run that outlasts its limit, an interrupt, a server not listening yet), and, where Debian's
 * ucx-utils is installed, the real one for a fraction of a second (skipped elsewhere). No figure is compared with a
 * threshold.
 */
@Timeout(120)
class UcxPerftestTest {

    private static final Duration LIMIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void aMissingExecutableSaysHowToInstallIt() {
        Path nowhere = dir.resolve("no-such-dir").resolve("ucx_perftest");
        UcxPerftest ucx = UcxPerftest.at(nowhere);
        assertThat(ucx.available()).isFalse();
        assertThat(ucx.executable()).isNull();
        assertThat(ucx.missingNote()).startsWith("ucx: " + nowhere + " is not an executable file; skipped")
                .contains("apt-get install ucx-utils", "https://github.com/openucx/ucx").doesNotContain("\n");
        assertThatThrownBy(() -> ucx.run(Mode.TAG_LAT, 64, 100, 0, LIMIT)).isInstanceOf(PerfException.class)
                .hasMessage(ucx.missingNote());
        assertThat(UcxPerftest.at(dir).available()).as("a directory").isFalse();
    }

    @Test
    void theCommandLines() {
        UcxPerftest ucx = fake("exit 0");
        List<String> options = UcxPerftest.options(Mode.TAG_LAT, 64, 1000, 10, 12345);
        assertThat(options).containsExactly("-t", "tag_lat", "-s", "64", "-n", "1000", "-w", "10", "-p", "12345");
        assertThat(ucx.command(null, options)).startsWith(ucx.executable().toString(), "-t");
        assertThat(UcxPerftest.describe(ucx.command(UcxPerftest.HOST, UcxPerftest.options(Mode.TAG_BW, 1 << 20, 5, 0, 7))))
                .isEqualTo("UCX_TLS=sm,self LC_ALL=C " + ucx.executable() + " 127.0.0.1 -t tag_bw -s 1048576 -n 5 -w 0 -p 7");
        assertThat(UcxPerftest.options(Mode.TAG_LAT, 64, 1000, 10, 12345, 99.0)).as("a percentile other than its default")
                .containsExactly("-t", "tag_lat", "-s", "64", "-n", "1000", "-w", "10", "-p", "12345", "-R", "99.0");
        assertThat(UcxPerftest.options(Mode.TAG_LAT, 64, 1000, 10, 12345, 50.0)).doesNotContain("-R");
    }

    @Test
    void aFinalLineIsReadFromTheClient() {
        Path output = capture("tag_lat-64-client.txt");
        UcxPerftest ucx = fake(client("cat '" + output + "'; touch '" + dir.resolve("done") + "'") + waitForClient());
        UcxFinal f = ucx.run(Mode.TAG_LAT, 64, 100, 0, LIMIT);
        assertThat(f.iterations()).isEqualTo(200_000);

        // the whole transport: a calibration and the measured run, both answered by the captured output
        PerfOptions o = PerfOptions.parse(new String[]{"echo", "--size", "64", "--transports", "ucx", "--duration", "0.2"});
        Result r = UcxRunner.run(o, ucx);
        assertThat(r.transport()).isEqualTo(Transport.UCX);
        assertThat(r.ops()).isEqualTo(200_000);
        assertThat(Figure.MEAN.of(r)).isEqualTo(2 * 59.259);
        assertThat(Figure.P99.of(r)).isNaN();
    }

    @Test
    void aClientStartedBeforeTheServerListensIsRetried() {
        Path output = capture("tag_bw-1m-client.txt");
        Path tried = dir.resolve("tried");
        UcxPerftest ucx = fake(client("if [ ! -e '" + tried + "' ]; then touch '" + tried + "'; "
                + "echo '[1.2] [vm:1:0]  perftest.c:405  UCX  ERROR client failed. connect() failed: Connection refused'; "
                + "exit 255; fi; "
                + "cat '" + output + "'; touch '" + dir.resolve("done") + "'") + waitForClient());
        assertThat(ucx.run(Mode.TAG_BW, 1 << 20, 100, 0, LIMIT).bandwidthOverall()).isEqualTo(815.49);
        assertThat(tried).exists();
    }

    @Test
    void aFailureNamesTheCommandLineAndQuotesTheOutput() {
        Path pids = dir.resolve("pids");
        // the client fails once the server has started (and written its process id)
        UcxPerftest ucx = fake(client("while [ ! -s '" + pids + "' ]; do sleep 0.01; done; echo 'UCX  ERROR something broke'; exit 3")
                + "echo $$ >> '" + pids + "'; exec sleep 600");
        assertThatThrownBy(() -> ucx.run(Mode.TAG_LAT, 64, 100, 0, LIMIT)).isInstanceOf(PerfException.class)
                .hasMessageStartingWith("ucx_perftest failed (exit status 3)")
                .hasMessageContaining("client: UCX_TLS=sm,self LC_ALL=C " + ucx.executable() + " 127.0.0.1 -t tag_lat -s 64 -n 100 -w 0 -p")
                .hasMessageContaining("server: UCX_TLS=sm,self LC_ALL=C " + ucx.executable() + " -t tag_lat -s 64 -n 100 -w 0 -p")
                .hasMessageContaining("    | UCX  ERROR something broke");
        assertGone(pids, 1);
    }

    @Test
    void outputWithoutAFinalLineIsAnError() {
        UcxPerftest ucx = fake("echo 'not a ucx_perftest'; exit 0");
        assertThatThrownBy(() -> ucx.run(Mode.TAG_LAT, 64, 100, 0, LIMIT)).isInstanceOf(PerfException.class)
                .hasMessageStartingWith("cannot read ucx_perftest's output: no 'Final:' line")
                .hasMessageContaining(" 127.0.0.1 -t tag_lat ")
                .hasMessageContaining("    | not a ucx_perftest");
    }

    @Test
    void aRunPastItsLimitIsDestroyed() {
        Path pids = dir.resolve("pids");
        UcxPerftest ucx = fake("echo $$ >> '" + pids + "'; exec sleep 600");
        assertThatThrownBy(() -> ucx.run(Mode.TAG_LAT, 64, 100, 0, Duration.ofSeconds(1))).isInstanceOf(PerfException.class)
                .hasMessageStartingWith("ucx_perftest did not finish within 1.0 s");
        assertGone(pids, 2);
    }

    @Test
    void anInterruptDestroysBothProcesses() throws Exception {
        Path pids = dir.resolve("pids");
        UcxPerftest ucx = fake("echo $$ >> '" + pids + "'; exec sleep 600");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicBoolean interrupted = new AtomicBoolean();
        Thread t = new Thread(() -> {
            try {
                ucx.run(Mode.TAG_LAT, 64, 100, 0, LIMIT);
            } catch (Throwable e) {
                thrown.set(e);
                interrupted.set(Thread.currentThread().isInterrupted());
            }
        });
        t.start();
        while (!Files.exists(pids) || Files.readAllLines(pids).size() < 2) {
            Thread.sleep(10); // until both have started
        }
        t.interrupt();
        t.join();
        assertThat(thrown.get()).isInstanceOf(PerfException.class).hasMessageContaining("interrupted");
        assertThat(interrupted).as("the interrupt is kept").isTrue();
        assertGone(pids, 2);
    }

    @Test
    void realEcho64Bytes() {
        UcxPerftest ucx = UcxPerftest.onPath();
        assumeTrue(ucx.available(), "ucx_perftest is not on the PATH (Debian: apt-get install ucx-utils)");
        Result r = UcxRunner.run(PerfOptions.parse(new String[]{"echo", "--size", "64", "--transports", "ucx",
            "--duration", "0.2", "--warmup", "0.05"}), ucx);
        assertThat(r.transport()).isEqualTo(Transport.UCX);
        assertThat(r.ops()).isGreaterThanOrEqualTo(UcxRunner.MIN_ITERATIONS);
        assertThat(Figure.MEAN.of(r)).isPositive();
        assertThat(Figure.P50.of(r)).isPositive();
        assertThat(Figure.MIB_PER_S.of(r)).isPositive();
        assertThat(Figure.P99.of(r)).as("from its second run, -R 99").isPositive();
        assertThat(Figure.P999.of(r)).isNaN();
        assertThat(Figure.CLIENT_CPU.of(r)).isNaN();
        assertThat(Figure.SERVER_CPU.of(r)).isNaN();
        assertNoUcxChildren(ucx);
    }

    @Test
    void realStream64KiB() {
        UcxPerftest ucx = UcxPerftest.onPath();
        assumeTrue(ucx.available(), "ucx_perftest is not on the PATH (Debian: apt-get install ucx-utils)");
        Result r = UcxRunner.run(PerfOptions.parse(new String[]{"rsocket-stream", "--size", "64k", "--transports", "ucx",
            "--duration", "0.2", "--warmup", "0.05"}), ucx);
        assertThat(r.ops()).isGreaterThanOrEqualTo(UcxRunner.MIN_ITERATIONS);
        assertThat(r.mibPerSecond()).isPositive();
        assertThat(Figure.MEAN.of(r)).isNaN();
        assertNoUcxChildren(ucx);
    }

    private static void assertNoUcxChildren(UcxPerftest ucx) {
        String exe = ucx.executable().toString();
        assertThat(ProcessHandle.current().children().filter(p -> p.info().command().map(exe::equals).orElse(false)))
                .as("ucx_perftest processes left behind").isEmpty();
    }

    /** The processes whose ids the script wrote to {@code pids}: at most {@code count} of them, none alive any more. */
    private static void assertGone(Path pids, int count) {
        List<String> lines;
        try {
            lines = Files.exists(pids) ? Files.readAllLines(pids) : List.of();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        assertThat(lines).hasSizeLessThanOrEqualTo(count);
        for (String pid : lines) {
            assertThat(ProcessHandle.of(Long.parseLong(pid.trim())).map(ProcessHandle::isAlive).orElse(false))
                    .as("process %s still alive", pid).isFalse();
        }
    }

    /** Shell lines that only the client runs (its first argument is the host), ending it with status 0 unless they exit first. */
    private static String client(String lines) {
        return "if [ \"$1\" = 127.0.0.1 ]; then " + lines + "; exit 0; fi\n";
    }

    /** The server's part: wait until the client has written {@code done}. */
    private String waitForClient() {
        return "while [ ! -e '" + dir.resolve("done") + "' ]; do sleep 0.02; done\n";
    }

    /** A captured output copied into the temporary directory, for a script to print. */
    private Path capture(String name) {
        Path p = dir.resolve(name);
        try {
            Files.write(p, UcxFinalTest.captured(name));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return p;
    }

    /** A shell script standing in for ucx_perftest, run as server and client alike; skipped where scripts cannot run here. */
    private UcxPerftest fake(String body) {
        Path script = dir.resolve("fake_perftest");
        boolean runs;
        try {
            Files.writeString(script, "#!/bin/sh\n[ \"$1\" = probe ] && exit 0\n" + body + "\n");
            runs = script.toFile().setExecutable(true);
            Process probe = new ProcessBuilder(script.toString(), "probe").redirectErrorStream(true).start();
            runs &= probe.waitFor(30, TimeUnit.SECONDS) && probe.exitValue() == 0;
        } catch (IOException e) {
            runs = false; // no /bin/sh, or a temporary directory mounted noexec
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        assumeTrue(runs, "cannot run a shell script from " + dir);
        return UcxPerftest.at(script);
    }
}
