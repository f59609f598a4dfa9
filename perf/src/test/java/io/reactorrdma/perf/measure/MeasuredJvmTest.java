package io.reactorrdma.perf.measure;

import io.reactorrdma.tools.launch.ChildJvm;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class MeasuredJvmTest {

    @Test
    void theChildGetsTheOptionsThenTheUsersOwnButNotWhatTheEnvironmentGivesItAnyway() {
        List<String> input = List.of("-Dtool=1", "-Dlauncher=2", "-Xss1m", "-Dreactor.rdma.x=y");
        assertThat(MeasuredJvm.childOptions(input, "-Dtool=1", " -Dlauncher=2 "))
                .containsExactly("-Xms256m", "-XX:+AlwaysPreTouch", "-Xss1m", "-Dreactor.rdma.x=y");
        assertThat(MeasuredJvm.childOptions(List.of("-Xss1m"), null, null)).containsExactly("-Xms256m", "-XX:+AlwaysPreTouch", "-Xss1m");
    }

    @Test
    void aHeapTheUserSizedIsLeftAsTheUserSizedIt() {
        assertThat(MeasuredJvm.childOptions(List.of("-Xmx128m"), null, null)).containsExactly("-XX:+AlwaysPreTouch", "-Xmx128m");
        assertThat(MeasuredJvm.childOptions(List.of("-XX:MaxHeapSize=1g"), null, null)).doesNotContain("-Xms256m");
    }

    @Test
    void anAgentOnTheCommandLineKeepsTheRunInThisJvm() {
        assertThat(MeasuredJvm.hasAgent(List.of("-Xss1m", "-agentlib:jdwp=transport=dt_socket,server=y,address=5005"))).isTrue();
        assertThat(MeasuredJvm.hasAgent(List.of("-javaagent:/opt/profiler.jar"))).isTrue();
        assertThat(MeasuredJvm.hasAgent(List.of("-agentpath:/opt/libasyncProfiler.so=start"))).isTrue();
        assertThat(MeasuredJvm.hasAgent(List.of("-Xss1m", "-Dreactor.rdma.x=y"))).isFalse();
    }

    @Test
    void helpAndAChoiceOnTheCommandLineRunInThisJvm() {
        assertThat(MeasuredJvm.shouldRelaunch(new String[0])).isFalse();
        assertThat(MeasuredJvm.shouldRelaunch(new String[] {"echo", "--help"})).isFalse();
        List<String> own = ManagementFactory.getRuntimeMXBean().getInputArguments();
        boolean chosen = own.stream().anyMatch(a -> a.contains("AlwaysPreTouch"));
        assertThat(MeasuredJvm.shouldRelaunch(new String[] {"echo", "--size", "64"})).isEqualTo(!chosen && !MeasuredJvm.hasAgent(own));
    }

    @Test
    void aRelaunchedJvmPreTouchesItsHeapHandsItsPeersTheOptionsAndPassesOnItsExitStatus() throws Exception {
        Process p = new ProcessBuilder(ChildJvm.of(MeasuredJvmTest.class, Relauncher.class.getName()).command(List.of("7")))
                .redirectErrorStream(true).start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the relaunching JVM ended").isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isEqualTo(7);
        assertThat(out).contains("child: pre-touch true, peers " + MeasuredJvm.OPTIONS);
    }

    /** A main that relaunches itself once, as the perf tool does; the child reports and exits with the status given. */
    public static final class Relauncher {
        public static void main(String[] args) {
            if (MeasuredJvm.shouldRelaunch(args)) {
                System.exit(MeasuredJvm.relaunch(Relauncher.class, args));
            }
            List<String> peers = new ArrayList<>(MeasuredJvm.peerOptions());
            boolean preTouch = ManagementFactory.getRuntimeMXBean().getInputArguments().contains("-XX:+AlwaysPreTouch");
            System.out.println("child: pre-touch " + preTouch + ", peers " + peers);
            System.exit(Integer.parseInt(args[0]));
        }
    }
}
