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

    private static final List<List<String>> NO_ENVIRONMENT = List.of(List.of(), List.of(), List.of());

    @Test
    void theChildGetsTheOptionsThenTheUsersOwnButNotWhatTheEnvironmentGivesItAnyway() {
        List<String> input = List.of("-Dtool=1", "-Dlauncher=2", "-Xss1m", "-Dreactor.rdma.x=y", "-Dlast=3");
        List<List<String>> environment = List.of(List.of("-Dtool=1"), List.of("-Dlauncher=2"), List.of("-Dlast=3"));
        List<String> own = MeasuredJvm.ownOptions(input, environment);
        assertThat(own).containsExactly("-Xss1m", "-Dreactor.rdma.x=y");
        assertThat(MeasuredJvm.childOptions(own, environment)).containsExactly("-Xms256m", "-XX:+AlwaysPreTouch", "-Xss1m",
                "-Dreactor.rdma.x=y");
        assertThat(MeasuredJvm.ownOptions(List.of("-Dquoted=a b"), List.of(List.of("-Dquoted=a", "b"), List.of(), List.of())))
                .as("written otherwise than the JVM lists it: kept").containsExactly("-Dquoted=a b");
    }

    @Test
    void aHeapTheUserOrTheEnvironmentSizedIsLeftAsItWasSized() {
        assertThat(MeasuredJvm.childOptions(List.of("-Xmx128m"), NO_ENVIRONMENT)).containsExactly("-XX:+AlwaysPreTouch", "-Xmx128m");
        assertThat(MeasuredJvm.childOptions(List.of("-XX:MaxHeapSize=1g"), NO_ENVIRONMENT)).doesNotContain("-Xms256m");
        assertThat(MeasuredJvm.childOptions(List.of(), List.of(List.of("-Xmx128m"), List.of(), List.of())))
                .as("a peer inherits the environment's -Xmx").containsExactly("-XX:+AlwaysPreTouch");
    }

    @Test
    void whatTheJvmHoldsOnToKeepsTheRunInThisJvm() {
        assertThat(MeasuredJvm.keptOption(List.of("-Xss1m", "-agentlib:jdwp=transport=dt_socket,server=y,address=5005")))
                .startsWith("-agentlib");
        assertThat(MeasuredJvm.keptOption(List.of("-javaagent:/opt/profiler.jar"))).isNotNull();
        assertThat(MeasuredJvm.keptOption(List.of("-XX:StartFlightRecording=filename=run.jfr"))).isNotNull();
        assertThat(MeasuredJvm.keptOption(List.of("-Xlog:gc:file=gc.log"))).isNotNull();
        assertThat(MeasuredJvm.keptOption(List.of("-Dcom.sun.management.jmxremote.port=9010"))).isNotNull();
        assertThat(MeasuredJvm.keptOption(List.of("-Xss1m", "-Xmx2g", "-Dreactor.rdma.x=y", "-Dperf.debug=true"))).isNull();
    }

    @Test
    void helpAndAChoiceOnTheCommandLineRunInThisJvm() {
        assertThat(MeasuredJvm.shouldRelaunch(new String[0])).isFalse();
        assertThat(MeasuredJvm.shouldRelaunch(new String[] {"echo", "--help"})).isFalse();
        List<String> own = MeasuredJvm.ownOptions(ManagementFactory.getRuntimeMXBean().getInputArguments(),
                MeasuredJvm.environmentOptions());
        boolean chosen = own.stream().anyMatch(a -> a.contains("AlwaysPreTouch"));
        assertThat(MeasuredJvm.shouldRelaunch(new String[] {"echo", "--size", "64"}))
                .isEqualTo(!chosen && MeasuredJvm.keptOption(own) == null);
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
