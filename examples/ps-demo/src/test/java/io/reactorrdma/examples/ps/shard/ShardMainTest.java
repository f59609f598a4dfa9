package io.reactorrdma.examples.ps.shard;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** ShardMain as a child process over shm: the READY line, meters on request, exit 0 when stdin closes or on SIGTERM. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShardMainTest {

    private final List<Process> children = new ArrayList<>();

    @TempDir
    Path scratch;
    private Path shmDir;

    @AfterEach
    void killChildren() throws Exception {
        for (Process p : children) {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
        if (shmDir != null && !shmDir.startsWith(scratch)) {
            try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(shmDir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    /** A directory of this test's own under /dev/shm (tmpfs, where shm belongs), or under the temp dir where there is none. */
    private Path shmDir() throws Exception {
        Path devShm = Paths.get("/dev/shm");
        shmDir = java.nio.file.Files.isDirectory(devShm) ? java.nio.file.Files.createTempDirectory(devShm, "ps-shard-main-test")
                : scratch.resolve("shm");
        return shmDir;
    }

    private Process start(Path shmDir) throws Exception {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                ShardMain.class.getName(), "--index", "1", "--count", "2", "--rows", "1024", "--dim", "8",
                "--provider", "shm", "--shm-dir", shmDir.toString()).redirectError(ProcessBuilder.Redirect.INHERIT);
        Process p = pb.start();
        children.add(p);
        return p;
    }

    private static String readLine(BufferedReader out) throws Exception {
        String line = out.readLine();
        assertThat(line).as("a line on stdout before EOF").isNotNull();
        return line;
    }

    @Test
    void printsReadyAnswersMetersAndExitsZeroWhenStdinCloses() throws Exception {
        Process p = start(shmDir());
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String ready = readLine(out);
        assertThat(ready).matches("SHARD-READY index=1 rdma=\\d+ tcp=\\d+ pid=" + p.pid());
        Writer in = new java.io.OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8);
        in.write("meters\n");
        in.flush();
        assertThat(readLine(out)).startsWith("METERS ").contains("rdma.copies.on.send=0");
        in.close(); // EOF: the parent is gone
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("exited after stdin closed").isTrue();
        assertThat(p.exitValue()).isZero();
    }

    @Test
    void exitsZeroOnSigterm() throws Exception {
        Process p = start(shmDir());
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        assertThat(readLine(out)).startsWith("SHARD-READY index=1 ");
        p.destroy(); // SIGTERM
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
        assertThat(p.exitValue()).isZero();
    }

    @Test
    void badOptionsAreAUsageErrorWithExitTwo() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertThat(ShardMain.run(new String[]{"--index", "0"}, System.out, e)).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("Missing required option: '--count=N'").contains("Usage: shard");
        err.reset();
        assertThat(ShardMain.run(new String[]{"--index", "2", "--count", "2"}, System.out, e)).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("index must be in 0..1");
        err.reset();
        assertThat(ShardMain.run(new String[]{"--index", "0", "--count", "1", "--provider", "ib"}, System.out, e)).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--provider must be auto, shm or disni");
        err.reset();
        assertThat(ShardMain.run(new String[]{"--index", "0", "--count", "1", "--rows", "lots"}, System.out, e)).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("Invalid value for option '--rows': 'lots' is not an int");
    }
}
