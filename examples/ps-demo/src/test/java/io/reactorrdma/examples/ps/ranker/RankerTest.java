package io.reactorrdma.examples.ps.ranker;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactorrdma.examples.ps.shard.EmbeddingShard;
import io.reactorrdma.examples.ps.shard.ShardConfig;
import io.reactorrdma.examples.ps.shard.ShardFixture;
import io.reactorrdma.rsocket.shard.ShardClient;
import io.rsocket.core.RSocketClient;
import io.rsocket.transport.ClientTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Shards in this JVM (loopback RDMA and TCP) and a ranker over them: the scores match the seed's table. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RankerTest {

    private static final int SHARDS = 3;
    private static final int ROWS = 2048;
    private static final int DIM = 16;
    private static final long SEED = 11;
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final ShardFixture fixture = new ShardFixture(configs());
    private final RankerConfig config = RankerConfig.defaults().withModels(3).withDimension(DIM).withRowsPerShard(ROWS).withSeed(SEED)
            .withReplySizes(new int[]{1024, 8192, 65536}, new int[]{40, 40, 20});
    private Map<Integer, ? extends RSocketClient> clients = Map.of();

    private static ShardConfig[] configs() {
        ShardConfig[] c = new ShardConfig[SHARDS];
        for (int i = 0; i < SHARDS; i++) {
            c[i] = ShardConfig.of(i, SHARDS).withRows(ROWS).withDimension(DIM).withSeed(SEED);
        }
        return c;
    }

    @AfterEach
    void close() {
        ShardClients.dispose(clients, WAIT);
        fixture.close();
    }

    /** The score computed from the seed alone: the rows the config draws, valued by EmbeddingShard.initialValue. */
    private double expectedScore(long user, int model) {
        float[] u = Ranker.userVector(SEED, user, DIM);
        int rows = config.rowsOf(user, model);
        double score = 0;
        for (int s = 0; s < SHARDS; s++) {
            int first = config.firstRowOf(user, model, s);
            for (int r = 0; r < rows; r++) {
                long key = (long) (first + r) * SHARDS + s;
                for (int c = 0; c < DIM; c++) {
                    score += EmbeddingShard.initialValue(SEED, key, c) * (double) u[c];
                }
            }
        }
        return score;
    }

    private void rankAndCheck(Ranker ranker, AtomicLong observed) {
        List<RankResult> results = Flux.range(100, 12).flatMap(u -> ranker.rank(u), 4).collectList().block(WAIT);
        assertThat(results).hasSize(12);
        for (RankResult r : results) {
            for (int m = 0; m < config.models(); m++) {
                assertThat(r.score(m)).as("user %d model %d", r.userId(), m).isCloseTo(expectedScore(r.userId(), m), within(1e-9));
            }
            assertThat(r.fetches()).isEqualTo(config.models() * SHARDS);
        }
        assertThat(observed.get()).as("the observer saw every model's fan-out").isEqualTo(12L * config.models());
    }

    @Test
    void ranksOverRdmaWithReplicatedShardClients() {
        List<List<ClientTransport>> replicas = new ArrayList<>();
        for (int s = 0; s < SHARDS; s++) {
            replicas.add(List.of(fixture.rdma(s)));
        }
        Map<Integer, ShardClient> shards = ShardClients.replicated(replicas, ShardClients.DEFAULT_ATTEMPT_TIMEOUT,
                new SimpleMeterRegistry());
        clients = shards;
        ShardClients.awaitConnected(shards, 1, WAIT);
        AtomicLong observed = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        Ranker ranker = new Ranker(shards, config, (nanos, replyBytes) -> {
            assertThat(nanos).isPositive();
            observed.incrementAndGet();
            bytes.addAndGet(replyBytes);
        }, fixture.clientResources.allocator().byteBufAllocator());
        rankAndCheck(ranker, observed);
        assertThat(bytes.get()).isGreaterThan(0);
        assertThat(ShardFixture.counter(fixture.clientMeters, "rdma.copies.on.send"))
                .as("requests written into registered memory are sent without a copy").isZero();
        assertThat(ShardFixture.counter(fixture.serverMeters, "rdma.copies.on.send"))
                .as("a model's fetch is one run of rows per shard: answered in the split form, without a copy").isZero();
    }

    @Test
    void ranksOverTcpWithPlainClients() {
        List<ClientTransport> transports = new ArrayList<>();
        for (int s = 0; s < SHARDS; s++) {
            transports.add(fixture.tcp(s));
        }
        Map<Integer, RSocketClient> shards = ShardClients.plain(transports);
        clients = shards;
        AtomicLong observed = new AtomicLong();
        rankAndCheck(new Ranker(shards, config, (nanos, replyBytes) -> observed.incrementAndGet()), observed);
    }

    @Test
    void ranksOverRdmaWithPlainClients() {
        List<ClientTransport> transports = new ArrayList<>();
        for (int s = 0; s < SHARDS; s++) {
            transports.add(fixture.rdma(s));
        }
        Map<Integer, RSocketClient> shards = ShardClients.plain(transports);
        clients = shards;
        AtomicLong observed = new AtomicLong();
        rankAndCheck(new Ranker(shards, config, (nanos, replyBytes) -> observed.incrementAndGet(),
                fixture.clientResources.allocator().byteBufAllocator()), observed);
    }

    @Test
    void addressesSplitIntoShardsOfReplicas() {
        List<List<java.net.InetSocketAddress>> s = ShardClients.parse("a:1,b:2,c:3,d:4", 2);
        assertThat(s).hasSize(2);
        assertThat(s.get(1).get(0).getHostString()).isEqualTo("c");
        assertThat(s.get(1).get(1).getPort()).isEqualTo(4);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ShardClients.parse("a:1,b:2,c:3", 2))
                .hasMessageContaining("3 addresses do not split into shards of 2 replicas");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ShardClients.parse("a1", 1)).hasMessageContaining("is not host:port");
    }
}
