package io.reactorrdma.verbs.soft;

import io.reactorrdma.config.SoftConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A context start probes the lock files of other contexts to find dead ones. Closing a channel on
 * a file drops every POSIX lock this process holds on it, whichever channel took it — so probing
 * the lock of another live context of the same JVM unlocked it, and the next context any other
 * process started took that lock and deleted the live context's files (found by the soak: a
 * later mapping failed with "memory cannot be mapped").
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShmContextLockTest {

    private Path dir;

    @BeforeEach
    void createDir() throws IOException {
        dir = Files.createDirectory(Paths.get("/dev/shm", "reactor-rdma-lock-" + ProcessHandle.current().pid() + "-" + System.nanoTime()),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    @AfterEach
    void deleteDir() throws IOException {
        ShmTestSupport.deleteTree(dir);
    }

    @Test
    void anotherContextOfThisJvmDoesNotUnlockALiveContextSoAnotherProcessKeepsItsFiles() throws Exception {
        SoftConfig config = SoftConfig.defaults().withShmDirectory(dir);
        try (SoftContext first = SoftContext.openShm(config)) {
            first.allocPd().allocate(64 * 1024, io.reactorrdma.verbs.AccessFlags.LOCAL_WRITE);
            List<String> firstFiles = files();
            assertThat(firstFiles).as("the first context's files").isNotEmpty();
            try (SoftContext second = SoftContext.openShm(config)) { // probes the first one's lock at start
                String java = ProcessHandle.current().info().command().orElse("java");
                Process other = new ProcessBuilder(java, "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                        ShmContextOpenMain.class.getName(), dir.toString())
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
                assertThat(other.waitFor(60, TimeUnit.SECONDS)).as("the other process finished").isTrue();
                assertThat(new String(other.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).contains("OPENED");
                assertThat(files()).as("files of the live first context after another process started a context")
                        .containsAll(firstFiles);
            }
        }
    }

    private List<String> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
