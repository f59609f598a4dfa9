package io.reactorrdma.examples.ps.ranker;

import io.reactorrdma.examples.ps.shard.ShardConfig;
import io.reactorrdma.examples.ps.shard.ShardFixture;
import io.reactorrdma.examples.ps.trainer.TrainerMain;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** RankerMain and TrainerMain in this JVM against two shards of a fixture, for two seconds each. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MainsTest {

    private final ShardFixture fixture = new ShardFixture(ShardConfig.of(0, 2).withRows(2048).withDimension(16),
            ShardConfig.of(1, 2).withRows(2048).withDimension(16));
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
    private final PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);

    @AfterEach
    void close() {
        fixture.close();
    }

    private String shards(boolean rdma) {
        return "127.0.0.1:" + (rdma ? fixture.servers.get(0).rdmaPort() : fixture.servers.get(0).tcpPort())
                + ",127.0.0.1:" + (rdma ? fixture.servers.get(1).rdmaPort() : fixture.servers.get(1).tcpPort());
    }

    @Test
    void rankerOverRdmaPrintsItsLine() {
        int status = RankerMain.run(new String[]{"--shards", shards(true), "--provider", "loopback", "--duration", "2s",
                "--dim", "16", "--rows", "2048", "--models", "2", "--outstanding", "2"}, o, e);
        assertThat(status).as("exit status; stderr: %s", err).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .containsPattern("RANKER transport=rdma requests=[1-9]\\d* failed=0 rate=[\\d.]+/s fetch-p50-ms=[\\d.]+ "
                        + "fetch-p99-ms=[\\d.]+ hedges=\\d+ retries=\\d+");
    }

    @Test
    void trainerOverTcpPrintsItsLine() {
        int status = TrainerMain.run(new String[]{"--shards", shards(false), "--transport", "tcp", "--duration", "2s",
                "--dim", "16", "--rows", "2048", "--trainers", "2"}, o, e);
        assertThat(status).as("exit status; stderr: %s", err).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .containsPattern("TRAINER transport=tcp trainers=2 steps=[1-9]\\d* failed=0 pushes=[1-9]\\d* "
                        + "push-p50-ms=[\\d.]+ push-p99-ms=[\\d.]+");
    }

    @Test
    void badOptionsExitTwo() {
        assertThat(RankerMain.run(new String[]{"--shards", "a:1,b:2,c:3", "--replicas", "2"}, o, e)).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("3 addresses do not split into shards of 2 replicas")
                .contains("Usage: ranker");
        assertThat(TrainerMain.run(new String[]{"--transport", "udp"}, o, e)).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--transport must be rdma or tcp");
    }
}
