package io.reactorrdma.incast.cli;

import io.reactorrdma.tools.cli.UsageException;
import io.reactorrdma.incast.topology.Placement;
import io.reactorrdma.incast.sweep.Arm;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** incast-sim's command line (picocli): the defaults, each option, and the errors that say what to do. */
class IncastOptionsTest {

    private static final int LEAF_SPINE_HOSTS = 480;

    private static IncastOptions parse(String... args) {
        return IncastSimCommand.parse(args, LEAF_SPINE_HOSTS);
    }

    @Test
    void theDefaultsAreThePapersScaleAndTheFullSweep() {
        IncastOptions o = parse();
        assertThat(o.trainers()).isEqualTo(346);
        assertThat(o.servers()).isEqualTo(124);
        assertThat(o.durationPs()).isEqualTo(50_000_000_000L);
        assertThat(o.seed()).isEqualTo(1);
        assertThat(o.mtuBytes()).isEqualTo(1024);
        assertThat(o.fragmentBytes()).isEqualTo(64 * 1024);
        assertThat(o.topology()).isEqualTo(IncastOptions.TopologyKind.LEAF_SPINE);
        assertThat(o.placement()).isEqualTo(Placement.SPREAD);
        assertThat(o.sync()).isTrue();
        assertThat(o.csv()).isFalse();
        assertThat(o.chart()).isNull();
        assertThat(o.threads()).isEqualTo(1);
        List<Arm> arms = o.arms();
        assertThat(arms).hasSize(2 + 8);
        assertThat(arms.get(0)).isEqualTo(Arm.pfc());
        assertThat(arms.get(1)).isEqualTo(Arm.dcqcn());
        assertThat(arms.subList(2, 10)).extracting(Arm::windowBytes)
                .containsExactly(8192L, 16384L, 32768L, 65536L, 131072L, 262144L, 524288L, 1048576L);
    }

    @Test
    void everyOptionIsTaken() {
        IncastOptions o = parse("--trainers", "8", "--servers=4", "--window", "256k, 64k,off,64k", "--duration", "2ms",
                "--seed", "-3", "--mtu", "4096", "--topology", "one-switch", "--async", "--arms", "window", "--csv",
                "--chart", "out/x.png", "--threads", "2");
        assertThat(o.trainers()).isEqualTo(8);
        assertThat(o.servers()).isEqualTo(4);
        assertThat(o.windows()).containsExactly(65536L, 262144L);
        assertThat(o.windowOff()).isTrue();
        assertThat(o.durationPs()).isEqualTo(2_000_000_000L);
        assertThat(o.seed()).isEqualTo(-3);
        assertThat(o.mtuBytes()).isEqualTo(4096);
        assertThat(o.topology()).isEqualTo(IncastOptions.TopologyKind.ONE_SWITCH);
        assertThat(o.sync()).isFalse();
        assertThat(o.csv()).isTrue();
        assertThat(o.chart()).isEqualTo(Path.of("out/x.png"));
        assertThat(o.threads()).isEqualTo(2);
        // --arms window with off in the sweep: off is the DCQCN arm without a window
        assertThat(o.arms()).containsExactly(Arm.dcqcn(), Arm.window(65536), Arm.window(262144));
        assertThat(parse("--arms", "pfc,window", "--window", "1m").arms()).containsExactly(Arm.pfc(), Arm.window(1 << 20));
        assertThat(parse("--fragment", "4k").fragmentBytes()).isEqualTo(4096);
        assertThat(parse().iterations()).isEqualTo(Integer.MAX_VALUE);
        assertThat(parse("--iterations", "2").iterations()).isEqualTo(2);
        assertThat(parse("--placement", "clustered").placement()).isEqualTo(Placement.CLUSTERED);
    }

    @Test
    void durationsTakeAUnit() {
        assertThat(parse("--duration", "500us").durationPs()).isEqualTo(500_000_000L);
        assertThat(parse("--duration", "0.05s").durationPs()).isEqualTo(50_000_000_000L);
        assertThat(parse("--duration", "2000ns").durationPs()).isEqualTo(2_000_000L);
        assertThat(parse().computePs()).isNull();
        assertThat(parse("--compute", "0us").computePs()).isZero();
        assertThat(parse("--compute", "1.5ms").computePs()).isEqualTo(1_500_000_000L);
        assertThatThrownBy(() -> parse("--duration", "50")).isInstanceOf(UsageException.class)
                .hasMessageContaining("with a unit, e.g. 50ms");
        assertThatThrownBy(() -> parse("--duration", "0ms")).hasMessageContaining("1us .. 10s");
        assertThatThrownBy(() -> parse("--duration", "11s")).hasMessageContaining("1us .. 10s");
        assertThatThrownBy(() -> parse("--compute", "-1ms")).hasMessage("bad --compute '-1ms': must be 0 .. 10s of simulated time");
    }

    @Test
    void badInputSaysWhatIsWrongAndWhatToUse() {
        assertThatThrownBy(() -> parse("--bogus")).isInstanceOf(UsageException.class)
                .hasMessage("Unknown option: '--bogus'");
        assertThatThrownBy(() -> parse("--window", "64q")).hasMessageContaining("bad --window size '64q'")
                .hasMessageContaining("64k = 65536");
        assertThatThrownBy(() -> parse("--window", "2g")).hasMessageContaining("1 byte .. 1g");
        assertThatThrownBy(() -> parse("--window", ",")).hasMessageContaining("--window is empty");
        assertThatThrownBy(() -> parse("--trainers", "400", "--servers", "124"))
                .hasMessage("400 trainers + 124 servers = 524 hosts, more than --topology leaf-spine holds (480); use fewer "
                        + "hosts or --topology one-switch");
        assertThat(parse("--trainers", "400", "--servers", "124", "--topology", "one-switch").trainers()).isEqualTo(400);
        assertThatThrownBy(() -> parse("--trainers", "0")).hasMessageContaining("must be 1..");
        assertThatThrownBy(() -> parse("--mtu", "1500")).hasMessageContaining("one of 256, 512, 1024, 2048, 4096");
        assertThatThrownBy(() -> parse("--arms", "pfc,ecn")).hasMessageContaining("unknown arm 'ecn'");
        assertThatThrownBy(() -> parse("--topology", "fat-tree")).hasMessageContaining("use leaf-spine or one-switch");
        assertThatThrownBy(() -> parse("--placement", "spread", "--topology", "one-switch"))
                .hasMessageContaining("--placement applies to --topology leaf-spine only");
        assertThatThrownBy(() -> parse("--sync", "--async")).hasMessageContaining("exclude each other");
        assertThatThrownBy(() -> parse("--chart", "x.svg")).hasMessageContaining("ending in .png");
        assertThatThrownBy(() -> parse("--chart", "x.png", "--arms", "pfc,dcqcn")).hasMessageContaining("add window to --arms");
        assertThatThrownBy(() -> parse("--seed")).hasMessageContaining("Missing required parameter for option '--seed'");
        assertThatThrownBy(() -> parse("--csv=yes")).hasMessageContaining("option '--csv'").hasMessageContaining("'yes'");
    }
}
