package io.reactorrdma.memory;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class DirectMemoryAccessTest {

    @Test
    @Timeout(120)
    void aJvmWhereNettyHasNoDirectMemoryAccessGetsOneClearErrorAtTheFirstPool(@TempDir Path dir) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Path out = dir.resolve("child.out");
        Process p = new ProcessBuilder(java, "-Xmx128m", "-Dio.netty.noUnsafe=true", "-cp", System.getProperty("java.class.path"),
                NoUnsafeMain.class.getName()).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        boolean exited = p.waitFor(60, TimeUnit.SECONDS);
        if (!exited) {
            p.destroyForcibly();
        }
        String printed = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(exited).as(printed).isTrue();
        assertThat(printed).contains("REFUSED: registered buffers need Netty's direct memory access (sun.misc.Unsafe)",
                "-Dio.netty.noUnsafe is set: remove it");
        assertThat(p.exitValue()).as(printed).isZero();
    }

    @Test
    void theAdviceFollowsTheReasonNettyGives() {
        assertThat(DirectMemoryAccess.unavailable(new UnsupportedOperationException("io.netty.noUnsafe=true by default on Java 25+")))
                .contains("(io.netty.noUnsafe=true by default on Java 25+)", "--sun-misc-unsafe-memory-access=allow");
        assertThat(DirectMemoryAccess.unavailable(new UnsupportedOperationException("--sun-misc-unsafe-memory-access=deny")))
                .contains("The JVM restricts sun.misc.Unsafe memory access", "--sun-misc-unsafe-memory-access=allow");
        assertThat(DirectMemoryAccess.unavailable(new UnsupportedOperationException("io.netty.noUnsafe")))
                .contains("-Dio.netty.noUnsafe is set: remove it").doesNotContain("restricts");
        assertThat(DirectMemoryAccess.unavailable(null)).contains("without -Dio.netty.noUnsafe=true");
    }

    /** Run in a JVM with -Dio.netty.noUnsafe=true: the first pool must refuse, saying why. */
    public static final class NoUnsafeMain {
        public static void main(String[] args) {
            try (SoftContext ctx = SoftContext.openLoopback(SoftConfig.defaults())) {
                ProtectionDomain pd = ctx.allocPd();
                try {
                    new RegisteredAllocator(pd).close();
                    System.out.println("CREATED");
                } catch (IllegalStateException e) {
                    System.out.println("REFUSED: " + e.getMessage());
                }
            }
        }
    }
}
