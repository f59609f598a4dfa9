package io.reactorrdma.rsocket.fanout;

import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.reactorrdma.rsocket.RdmaServerTransport;
import io.reactorrdma.rsocket.testing.LiveBufferWait;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketClient;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.util.DefaultPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link FanOut} over four shard connections to an RDMA (loopback) server whose answer depends on
 * the request: "ok" answers, "fail" fails after 100 ms, "silent" never answers (and records the
 * cancel). Answers are decoded zero-copy, so an answer the fan-out failed to release shows up as a
 * live registered buffer when the test ends.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FanOutTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20);

    private final Set<String> cancelledAtServer = ConcurrentHashMap.newKeySet();
    private RdmaResources serverResources;
    private RdmaResources clientResources;
    private RdmaServerTransport.Bound server;
    private final List<RSocket> connections = new ArrayList<>();

    @BeforeEach
    void start() {
        serverResources = RdmaResources.builder("shards").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        clientResources = RdmaResources.builder("fan-out").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        server = RSocketServer.create((setup, sendingSocket) -> Mono.just(new RSocket() {
                    @Override
                    public Mono<Payload> requestResponse(Payload p) {
                        String d = p.getDataUtf8();
                        p.release();
                        if (d.startsWith("fail")) {
                            return Mono.delay(Duration.ofMillis(100)).then(Mono.error(new IllegalStateException("boom at " + d)));
                        }
                        if (d.startsWith("empty")) {
                            return Mono.empty(); // legal in RSocket: the requester's Mono completes without a value
                        }
                        if (d.startsWith("silent")) {
                            return Mono.<Payload>never().doOnCancel(() -> cancelledAtServer.add(d));
                        }
                        return Mono.just(DefaultPayload.create("re:" + d));
                    }
                }))
                .bind(RdmaServerTransport.create(RdmaServer.create().port(0).runOn(serverResources)))
                .block(Duration.ofSeconds(30));
    }

    @AfterEach
    void stop() {
        connections.forEach(RSocket::dispose);
        for (RSocket c : connections) {
            c.onClose().onErrorResume(e -> Mono.empty()).block(Duration.ofSeconds(30));
        }
        server.dispose();
        clientResources.dispose();
        serverResources.dispose();
        LiveBufferWait.awaitZero(clientResources, serverResources);
    }

    /** {@code n} shards, each its own connection to the server. */
    private Map<Integer, RSocketClient> shards(int n) {
        Map<Integer, RSocketClient> shards = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            RSocket c = RSocketConnector.create().payloadDecoder(PayloadDecoder.ZERO_COPY)
                    .connect(RdmaClientTransport.create(RdmaClient.create().port(server.address().getPort()).runOn(clientResources)))
                    .block(Duration.ofSeconds(30));
            connections.add(c);
            shards.put(i, RSocketClient.from(c));
        }
        return shards;
    }

    private static String data(Payload p) {
        String d = p.getDataUtf8();
        p.release();
        return d;
    }

    @Test
    void everyShardAnswers() {
        Map<Integer, Payload> answers = FanOut.requestResponse(shards(4), shard -> DefaultPayload.create("ok" + shard), DEADLINE)
                .block(Duration.ofSeconds(30));
        Map<Integer, String> texts = new LinkedHashMap<>();
        answers.forEach((k, p) -> texts.put(k, data(p)));
        assertThat(texts).containsExactly(Map.entry(0, "re:ok0"), Map.entry(1, "re:ok1"), Map.entry(2, "re:ok2"), Map.entry(3, "re:ok3"));
    }

    @Test
    void aShardThatAnswersEmptyIsAnAnswerWithoutData() {
        Map<Integer, String> behaviour = Map.of(0, "ok", 1, "empty", 2, "ok");
        Map<Integer, RSocketClient> shards = shards(3);
        Map<Integer, Payload> answers = FanOut.requestResponse(shards,
                shard -> DefaultPayload.create(behaviour.get(shard) + shard), DEADLINE)
                .block(Duration.ofSeconds(30));
        Map<Integer, String> texts = new LinkedHashMap<>();
        answers.forEach((k, p) -> texts.put(k, data(p)));
        assertThat(texts).as("every shard's key, the empty one's answer without data")
                .containsExactly(Map.entry(0, "re:ok0"), Map.entry(1, ""), Map.entry(2, "re:ok2"));

        FanOutResult<Integer> all = FanOut.requestResponseAll(shards,
                shard -> DefaultPayload.create(behaviour.get(shard) + shard), DEADLINE)
                .block(Duration.ofSeconds(30));
        try {
            assertThat(all.answers()).as("requestResponseAll: the empty answer is an answer").containsOnlyKeys(0, 1, 2);
            assertThat(all.isComplete()).isTrue();
            assertThat(all.answers().get(1).data().readableBytes()).isZero();
        } finally {
            all.release();
        }
    }

    @Test
    void oneShardFailsTheFanOutNamesItCancelsTheOthersAndReleasesTheAnswersIn() {
        Map<Integer, String> behaviour = Map.of(0, "ok", 1, "ok", 2, "fail", 3, "silent");
        assertThatThrownBy(() -> FanOut.requestResponse(shards(4), shard -> DefaultPayload.create(behaviour.get(shard) + shard), DEADLINE)
                .block(Duration.ofSeconds(30)))
                .isInstanceOfSatisfying(FanOutException.class, e -> {
                    assertThat(e.shards()).containsExactly(2);
                    assertThat(e.isTimeout()).isFalse();
                    assertThat(e).hasMessageContaining("shard 2 failed").hasMessageContaining("boom at fail2");
                    assertThat(e.getCause()).hasMessageContaining("boom at fail2");
                });
        LiveBufferWait.until(Duration.ofSeconds(20), () -> cancelledAtServer.contains("silent3"));
        // the answers of shards 0 and 1 came in before the failure: the leak check in stop() sees them released
    }

    @Test
    void theDeadlineNamesTheShardsThatDidNotAnswerAndCancelsThem() {
        Map<Integer, String> behaviour = Map.of(0, "ok", 1, "silent", 2, "ok", 3, "silent");
        assertThatThrownBy(() -> FanOut.requestResponse(shards(4),
                shard -> DefaultPayload.create(behaviour.get(shard) + shard), Duration.ofMillis(300))
                .block(Duration.ofSeconds(30)))
                .isInstanceOfSatisfying(FanOutException.class, e -> {
                    assertThat(e.isTimeout()).isTrue();
                    assertThat(e.shards()).containsExactly(1, 3);
                    assertThat(e).hasMessageContaining("shards [1, 3] of 4 did not answer within 300 ms");
                    assertThat(e.getCause()).isInstanceOf(TimeoutException.class);
                });
        LiveBufferWait.until(Duration.ofSeconds(20), () -> cancelledAtServer.containsAll(List.of("silent1", "silent3")));
    }

    @Test
    void partialResultsKeepTheAnswersAndSayWhyEachOtherShardHasNone() {
        Map<Integer, String> behaviour = Map.of(0, "ok", 1, "ok", 2, "fail", 3, "silent");
        FanOutResult<Integer> result = FanOut.requestResponseAll(shards(4),
                shard -> DefaultPayload.create(behaviour.get(shard) + shard), Duration.ofMillis(500))
                .block(Duration.ofSeconds(30));
        try {
            assertThat(result.isComplete()).isFalse();
            assertThat(result.answers().keySet()).containsExactly(0, 1);
            assertThat(result.answers().get(1).getDataUtf8()).isEqualTo("re:ok1");
            assertThat(result.errors().keySet()).containsExactly(2, 3);
            assertThat(result.errors().get(2)).hasMessageContaining("boom at fail2");
            assertThat(result.errors().get(3)).isInstanceOfSatisfying(FanOutException.class, e -> assertThat(e.isTimeout()).isTrue());
        } finally {
            result.release();
        }
        LiveBufferWait.until(Duration.ofSeconds(20), () -> cancelledAtServer.contains("silent3"));
    }

    @Test
    void noShardsIsAnEmptyAnswerAndBadArgumentsSayWhatIsWrong() {
        assertThat(FanOut.requestResponse(Map.<Integer, RSocketClient>of(), shard -> DefaultPayload.create("x"), DEADLINE)
                .block(Duration.ofSeconds(5))).isEmpty();
        assertThatThrownBy(() -> FanOut.requestResponse(Map.<Integer, RSocketClient>of(),
                shard -> DefaultPayload.create("x"), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("deadline must be positive");
        Map<Integer, RSocketClient> missing = new LinkedHashMap<>();
        missing.put(7, null);
        assertThatThrownBy(() -> FanOut.requestResponse(missing, shard -> DefaultPayload.create("x"), DEADLINE))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("shard 7 has no client");
    }
}
