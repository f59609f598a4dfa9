package io.reactorrdma.tools.launch;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The child's command line, and a real child that runs a main class of this class path and reads a forwarded property. */
class ChildJvmTest {

    /** The child the last test starts: prints the forwarded property and its arguments. */
    public static final class Echo {
        public static void main(String[] args) {
            System.out.println(System.getProperty("tools.test.forwarded") + " " + String.join(" ", args));
        }
    }

    @Test
    void theCommandLineIsJavaOptionsPropertiesClassPathMainAndArguments() {
        System.setProperty("tools.test.forwarded", "yes");
        System.setProperty("tools.test.kept", "no");
        try {
            List<String> cmd = ChildJvm.of(ChildJvmTest.class, Echo.class.getName()).withJvmOptions(List.of("-Xmx64m"))
                    .forwarding(name -> name.equals("tools.test.forwarded")).command(List.of("a", "b"));
            assertThat(cmd.get(0)).isEqualTo(ChildJvm.javaBinary());
            assertThat(cmd.subList(1, cmd.size())).containsExactly("-Xmx64m", "-Dtools.test.forwarded=yes", "-cp",
                    System.getProperty("java.class.path"), Echo.class.getName(), "a", "b");
        } finally {
            System.clearProperty("tools.test.forwarded");
            System.clearProperty("tools.test.kept");
        }
    }

    @Test
    void theLibrariesPropertiesAreTheToolkitsAndNettys() {
        assertThat(ChildJvm.libraryProperty("reactor.rdma.soft.strict")).isTrue();
        assertThat(ChildJvm.libraryProperty("io.netty.leakDetection.level")).isTrue();
        assertThat(ChildJvm.libraryProperty("io.netty.processId")).as("this process's identity").isFalse();
        assertThat(ChildJvm.libraryProperty("io.netty.machineId")).isFalse();
        assertThat(ChildJvm.libraryProperty("java.class.path")).isFalse();
        assertThat(ChildJvm.libraryProperty("user.dir")).isFalse();
    }

    @Test
    void fromClassDirectoriesTheClassPathIsTheJvms() {
        assertThat(ChildJvm.classPath(ChildJvmTest.class)).isEqualTo(System.getProperty("java.class.path"));
        assertThat(ChildJvm.of(ChildJvmTest.class, "x.Main").command(List.of())).hasSize(4);
    }

    @Test
    void theChildRuns() throws IOException, InterruptedException {
        System.setProperty("tools.test.forwarded", "passed");
        Process p;
        try {
            p = new ProcessBuilder(ChildJvm.of(ChildJvmTest.class, Echo.class.getName())
                    .forwarding(name -> name.startsWith("tools.test.")).command(List.of("on")))
                    .redirectErrorStream(true).start();
        } finally {
            System.clearProperty("tools.test.forwarded");
        }
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the child ends").isTrue();
        assertThat(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip()).isEqualTo("passed on");
        assertThat(p.exitValue()).isZero();
    }
}
