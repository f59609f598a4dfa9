package io.reactorrdma.examples.ps.demo;

import io.reactorrdma.tools.cli.UsageException;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The demo's options: defaults, --quick's defaults, explicit values winning, and bad input answered with what to do. */
class DemoOptionsTest {

    @Test
    void defaultsAndQuickDefaults() {
        DemoOptions d = DemoOptions.parse(List.of());
        assertThat(d.shards()).isEqualTo(DemoOptions.DEFAULT_SHARDS);
        assertThat(d.replicas()).isEqualTo(2);
        assertThat(d.duration()).isEqualTo(DemoOptions.DEFAULT_DURATION);
        assertThat(d.transports()).containsExactly("rdma", "tcp");
        assertThat(d.provider()).isEqualTo("shm");
        assertThat(d.out()).isEqualTo(Path.of("demo-report"));
        assertThat(d.hosts()).isNull();

        DemoOptions q = DemoOptions.parse(List.of("--quick", "--shards=3", "--duration", "2s"));
        assertThat(q.shards()).isEqualTo(3);
        assertThat(q.rankers()).isEqualTo(DemoOptions.QUICK_RANKERS);
        assertThat(q.duration()).isEqualTo(Duration.ofSeconds(2));
        assertThat(q.warmup()).isEqualTo(DemoOptions.QUICK_WARMUP);
        assertThat(q.commandLine()).containsExactly("--quick", "--shards=3", "--duration", "2s");
    }

    @Test
    void hostsAreReplicasInShardOrder() {
        DemoOptions o = DemoOptions.parse(List.of("--provider", "disni", "--shards", "1", "--hosts", "a:7000:7001,b:7000:7001"));
        assertThat(o.hosts()).hasSize(2);
        assertThat(o.hosts().get(1)[0].getHostString()).isEqualTo("b");
        assertThat(o.hosts().get(1)[1].getPort()).isEqualTo(7001);
    }

    @Test
    void badInputSaysWhatIsWrong() {
        assertThatThrownBy(() -> DemoOptions.parse(List.of("--shards", "0"))).hasMessage("--shards must be at least 1, got 0");
        assertThatThrownBy(() -> DemoOptions.parse(List.of("--replicas", "1"))).isInstanceOf(UsageException.class)
                .hasMessageContaining("at least 2").hasMessageContaining("recovery");
        assertThatThrownBy(() -> DemoOptions.parse(List.of("--shards", "x")))
                .hasMessageContaining("Invalid value for option '--shards': 'x' is not an int");
        assertThatThrownBy(() -> DemoOptions.parse(List.of("--duration", "soon"))).hasMessageContaining("15s, 500ms or 2m");
        assertThatThrownBy(() -> DemoOptions.parse(List.of("--transports", "tcp"))).hasMessageContaining("must include rdma");
        assertThatThrownBy(() -> DemoOptions.parse(List.of("--provider", "loopback")))
                .hasMessageContaining("shm (processes on this host) or disni");
        assertThatThrownBy(() -> DemoOptions.parse(List.of("--hosts", "a:7000"))).hasMessageContaining("host:rdmaPort:tcpPort");
        assertThatThrownBy(() -> DemoOptions.parse(List.of("--shards", "2", "--hosts", "a:1:2"))).hasMessageContaining("needs 4");
        assertThatThrownBy(() -> DemoOptions.parse(List.of("--frobnicate"))).hasMessageContaining("Unknown option: '--frobnicate'");
        assertThatThrownBy(() -> DemoOptions.parse(List.of("--out"))).hasMessageContaining("Missing required parameter for option '--out'");
    }
}
