package io.reactorrdma.rsocket.fallback;

import io.reactorrdma.config.SoftConfig;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link DualServerMain} in a forked JVM over its own shm directory, for the chaos tests: its
 * ports, its stdin commands, and a check on exit that it released everything and left no file.
 */
final class ForkedDualServer {

    final Path dir;
    final int rdmaPort;
    final int tcpPort;
    private final Process process;
    private final BufferedReader out;
    private final OutputStream in;

    private ForkedDualServer(Path dir, Process process) throws IOException {
        this.dir = dir;
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.in = process.getOutputStream();
        String line = out.readLine();
        assertThat(line).as("the server process's first line").isNotNull().startsWith("READY ");
        String[] ports = line.split(" ");
        this.rdmaPort = Integer.parseInt(ports[1]);
        this.tcpPort = Integer.parseInt(ports[2]);
    }

    /** Starts the server over a fresh directory {@code /dev/shm/<dirPrefix>-<pid>-<nanos>}. */
    static ForkedDualServer start(String dirPrefix, Duration peerTimeout) throws IOException {
        Path dir = Paths.get("/dev/shm", dirPrefix + "-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-D" + SoftConfig.STRICT_PROPERTY + "=" + SoftConfig.defaults().strict(),
                "-cp", System.getProperty("java.class.path"), DualServerMain.class.getName(), dir.toString(),
                Long.toString(peerTimeout.toMillis()))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        return new ForkedDualServer(dir, p);
    }

    /** One stdin command and its one-line answer. */
    synchronized String command(String c) throws IOException {
        in.write((c + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
        return out.readLine();
    }

    /** Requests the server saw: {RDMA, TCP}. */
    long[] stats() throws IOException {
        String[] s = command("stats").split(" ");
        assertThat(s[0]).isEqualTo("STATS");
        return new long[] {Long.parseLong(s[1]), Long.parseLong(s[2])};
    }

    /** Closes its stdin: it must answer that nothing is live, exit, and leave no shm file. */
    void stopAndCheck() throws IOException, InterruptedException {
        in.close();
        assertThat(out.readLine()).as("the server's last line").isEqualTo("EXIT live=0");
        assertThat(process.waitFor(20, TimeUnit.SECONDS)).as("the server exited").isTrue();
        try (Stream<Path> files = Files.walk(dir)) {
            assertThat(files.filter(p -> !p.equals(dir)).toList()).as("shm files left").isEmpty();
        }
    }

    /** Whatever happened: the process is gone and its directory deleted. */
    void destroy() throws IOException, InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (Files.exists(dir)) {
            try (Stream<Path> w = Files.walk(dir)) {
                for (Path p : w.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
