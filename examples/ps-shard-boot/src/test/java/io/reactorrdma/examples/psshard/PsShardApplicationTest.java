package io.reactorrdma.examples.psshard;

import io.reactorrdma.RdmaResources;
import io.reactorrdma.examples.psshard.ShardMessages.FetchReply;
import io.reactorrdma.examples.psshard.ShardMessages.FetchRequest;
import io.reactorrdma.examples.psshard.ShardMessages.GradientBatch;
import io.reactorrdma.examples.psshard.ShardMessages.PushAck;
import io.reactorrdma.examples.psshard.ShardMessages.ShardInfo;
import io.reactorrdma.rsocket.boot.RdmaRSocketRequesters;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.messaging.rsocket.RSocketRequester;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import reactor.core.publisher.Flux;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * The shard application started as a user starts it (its application.properties, the shm provider on
 * a private directory, a free port), called through the auto-configured requester over RDMA: info,
 * fetch, a pushed gradient that moves the row by exactly one SGD step, a push stream acknowledged per
 * batch, and a key the shard does not hold refused with an error that says so. After close: no live
 * buffers, no shm files.
 */
@ExtendWith(PsShardApplicationTest.AfterClose.class) // before @SpringBootTest: its afterAll runs after the context closed
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {"reactor.rdma.provider=shm", "reactor.rdma.threads=1", "reactor.rdma.rsocket.server.port=0",
                "ps.shard.rows=1000", "ps.shard.dimension=8", "ps.shard.learning-rate=0.5"})
@DirtiesContext
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PsShardApplicationTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Path SHM = Paths.get("/dev/shm", "reactor-rdma-ps-shard-test-" + ProcessHandle.current().pid()
            + "-" + System.nanoTime());

    @DynamicPropertySource
    static void shmDirectory(DynamicPropertyRegistry registry) {
        registry.add("reactor.rdma.shm-directory", SHM::toString);
    }

    private static volatile RdmaResources resources;

    @Autowired
    private ConfigurableApplicationContext context;
    @Autowired
    private RdmaRSocketRequesters requesters;
    @Autowired
    private EmbeddingTable table;

    @Test
    void fetchesAndAppliesPushedGradientsOverRdma() throws Exception {
        int port = context.getEnvironment().getRequiredProperty("local.reactor.rdma.rsocket.server.port", Integer.class);
        resources = context.getBean(RdmaResources.class);
        assertThat(resources.context().providerName()).isEqualTo("shm");
        RSocketRequester shard = requesters.requester("127.0.0.1", port);
        try {
            assertThat(shard.route("info").retrieveMono(ShardInfo.class).block(WAIT)).isEqualTo(new ShardInfo(0, 1, 1000, 8));

            FetchReply reply = shard.route("fetch").data(new FetchRequest(new long[]{0, 5, 999}))
                    .retrieveMono(FetchReply.class).block(WAIT);
            assertThat(reply.keys()).containsExactly(0, 5, 999);
            assertThat(reply.rows()).hasNumberOfRows(3);
            assertThat(reply.rows()[1]).containsExactly(table.row(5));

            float[] before = reply.rows()[1];
            float[] ones = new float[8];
            Arrays.fill(ones, 1f);
            shard.route("push").data(new GradientBatch(new long[]{5}, new float[][]{ones})).send().block(WAIT);
            float[] expected = new float[8];
            for (int i = 0; i < 8; i++) {
                expected[i] = before[i] - 0.5f; // learning rate 0.5 x gradient 1
            }
            long deadline = System.nanoTime() + WAIT.toNanos();
            float[] after;
            do { // fire-and-forget: applied when the server has read it
                after = shard.route("fetch").data(new FetchRequest(new long[]{5})).retrieveMono(FetchReply.class).block(WAIT).rows()[0];
            } while (Math.abs(after[0] - expected[0]) > 1e-5f && System.nanoTime() < deadline);
            assertThat(after).containsExactly(expected, within(1e-5f));

            List<PushAck> acks = shard.route("push-stream")
                    .data(Flux.range(0, 3).map(i -> new GradientBatch(new long[]{10 + i, 20 + i}, new float[][]{ones, ones})),
                            GradientBatch.class)
                    .retrieveFlux(PushAck.class).collectList().block(WAIT);
            assertThat(acks).containsExactly(new PushAck(2), new PushAck(2), new PushAck(2));

            assertThatThrownBy(() -> shard.route("fetch").data(new FetchRequest(new long[]{5000}))
                    .retrieveMono(FetchReply.class).block(WAIT))
                    .hasMessageContaining("holds 1000 rows");
        } finally {
            shard.dispose();
        }

    }

    /** After the context closed (@DirtiesContext): no live buffers, no shm files; then removes the directory. */
    static final class AfterClose implements AfterAllCallback {
        @Override
        public void afterAll(ExtensionContext extension) throws Exception {
            try {
                RdmaResources r = resources;
                if (r != null) {
                    assertThat(r.isDisposed()).as("resources disposed with the context").isTrue();
                    long deadline = System.nanoTime() + WAIT.toNanos();
                    while (r.allocator().liveBuffers() != 0 && System.nanoTime() < deadline) {
                        Thread.sleep(10);
                    }
                    assertThat(r.allocator().liveBuffers()).as("live buffers after close").isZero();
                }
                if (Files.exists(SHM)) {
                    try (Stream<Path> files = Files.list(SHM)) {
                        assertThat(files).as("files left in the shm directory").isEmpty();
                    }
                }
            } finally {
                if (Files.exists(SHM)) {
                    try (Stream<Path> w = Files.walk(SHM)) {
                        w.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                    }
                }
            }
        }
    }
}
