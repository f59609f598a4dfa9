package io.reactorrdma.perf.soak;

import io.reactorrdma.tools.cli.UsageException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** soak's command line (picocli): the defaults, durations with a unit, and the errors that say what to do. */
class SoakOptionsTest {

    @Test
    void defaultsAndValues() {
        SoakOptions d = SoakOptions.parse(new String[0]);
        assertThat(d.durationMillis).isEqualTo(600_000);
        assertThat(d.connections).isEqualTo(16);
        SoakOptions o =
                SoakOptions.parse(new String[]{"--duration", "90s", "--connections=4", "--seed", "-7", "--receive-cancel-share", "0.5"});
        assertThat(o.durationMillis).isEqualTo(90_000);
        assertThat(o.connections).isEqualTo(4);
        assertThat(o.seed).isEqualTo(-7);
        assertThat(o.receiveCancelShare).isEqualTo(0.5);
        assertThat(SoakOptions.parse(new String[]{"--duration", "10m"}).durationMillis).isEqualTo(600_000);
        assertThat(SoakOptions.help()).contains("--duration", "--freeze-ms", "SIGKILL");
    }

    @Test
    void badInputSaysWhatIsWrong() {
        assertThatThrownBy(() -> SoakOptions.parse(new String[]{"--duration", "1s"})).isInstanceOf(UsageException.class)
                .hasMessageContaining("at least 5s");
        assertThatThrownBy(() -> SoakOptions.parse(new String[]{"--duration", "soon"})).hasMessageContaining("10m, 90s");
        assertThatThrownBy(() -> SoakOptions.parse(new String[]{"--connections", "1"})).hasMessageContaining("at least 2");
        assertThatThrownBy(() -> SoakOptions.parse(new String[]{"--bogus", "1"})).hasMessageContaining("Unknown options: '--bogus'");
    }
}
