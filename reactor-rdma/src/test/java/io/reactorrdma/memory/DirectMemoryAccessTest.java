package io.reactorrdma.memory;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class DirectMemoryAccessTest {

    @Test
    @Timeout(120)
    void aJvmWhereNettyHasNoDirectMemoryAccessGetsOneClearErrorAtTheFirstPool() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, "-Xmx128m", "-Dio.netty.noUnsafe=true", "-cp", System.getProperty("java.class.path"),
                NoUnsafeMain.class.getName()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("REFUSED: registered buffers need Netty's direct memory access (sun.misc.Unsafe)",
                DirectMemoryAccess.ENABLE_OPTION);
        assertThat(p.exitValue()).as(out).isZero();
    }

    @Test
    void theMessageSaysWhatToDoOnEitherSideOfJava25() {
        assertThat(DirectMemoryAccess.unavailable(25, new UnsupportedOperationException("off by default")))
                .contains("(off by default)", "Netty turns it off by default on Java 25", "--sun-misc-unsafe-memory-access=allow",
                        "-Dio.netty.noUnsafe=false");
        assertThat(DirectMemoryAccess.unavailable(17, null))
                .contains("without -Dio.netty.noUnsafe=true").doesNotContain("sun-misc-unsafe-memory-access");
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
