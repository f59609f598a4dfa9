package io.reactorrdma.rsocket.boot;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.rsocket.RdmaServerTransport;
import io.reactorrdma.rsocket.shard.ShardClient;
import io.reactorrdma.rsocket.testing.ReplicaServerMain;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketServer;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.rsocket.util.DefaultPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.rsocket.autoconfigure.RSocketRequesterAutoConfiguration;
import org.springframework.boot.rsocket.autoconfigure.RSocketStrategiesAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.rsocket.RSocketRequester;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.stream.Stream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code reactor.rdma.rsocket.client.shards.*} and {@code shard.*} give replicated {@link ShardClient}s
 * from the auto-configuration: the properties bind (defaults are ShardClient's), bad values fail
 * startup naming the property, and over two loopback replicas every idempotent call succeeds, through
 * the shard client and through a Spring requester over it, while one replica is closed mid-run;
 * with {@code tcp-fallback} a replica is reached over TCP when RDMA cannot open;
 * a replica process killed (shm) shows in health {@code rdma} as {@code engineFailures} 1 and in
 * {@code rdma.engine.failures}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RdmaShardClientsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RSocketStrategiesAutoConfiguration.class,
                    RSocketRequesterAutoConfiguration.class, RdmaAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class)
            .withPropertyValues("reactor.rdma.provider=loopback", "reactor.rdma.threads=1", "reactor.rdma.name=shard-boot-client");

    /** Each replica's own resources: disposing them closes its server and its connections, as a replica going away. */
    private final List<RdmaResources> replicaResources = new ArrayList<>();
    private final List<RdmaServerTransport.Bound> servers = new ArrayList<>();

    @AfterEach
    void stopReplicas() {
        servers.forEach(RdmaServerTransport.Bound::dispose);
        replicaResources.forEach(RdmaResources::dispose);
        replicaResources.forEach(RdmaShardClientsTest::awaitNoLiveBuffers);
    }

    /** A replica echoing each request's data; the counter counts the requests it answered. */
    private InetSocketAddress replica(AtomicInteger answered) {
        RdmaResources serverResources = RdmaResources.builder("shard-boot-replica-" + replicaResources.size()).provider("loopback")
                .threads(1).idle(IdleStrategy.BACK_OFF).build();
        replicaResources.add(serverResources);
        RdmaServerTransport.Bound bound = RSocketServer.create((setup, sending) -> Mono.just(new RSocket() {
                    @Override
                    public Mono<Payload> requestResponse(Payload p) {
                        try {
                            answered.incrementAndGet();
                            return Mono.just(DefaultPayload.create(p.getDataUtf8()));
                        } finally {
                            p.release();
                        }
                    }
                }))
                .bind(RdmaServerTransport.create(RdmaServer.create().port(0).runOn(serverResources)))
                .block(Duration.ofSeconds(30));
        servers.add(bound);
        return new InetSocketAddress("127.0.0.1", bound.address().getPort());
    }

    @Test
    void propertiesBindWithShardClientDefaults() {
        runner.withPropertyValues("reactor.rdma.rsocket.client.shards.ps-0.replicas=ps-0a:7000,ps-0b:7002",
                "reactor.rdma.rsocket.client.shards.ps-1.replicas=[::1]:7100",
                "reactor.rdma.rsocket.client.shard.max-attempts=2", "reactor.rdma.rsocket.client.shard.hedging=false",
                "reactor.rdma.rsocket.client.shard.timeout=250ms").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(RdmaShardClients.class);
            RdmaShardClients shards = context.getBean(RdmaShardClients.class);
            assertThat(shards.names()).containsExactlyInAnyOrder("ps-0", "ps-1");
            assertThat(shards.replicas("ps-0")).containsExactly(InetSocketAddress.createUnresolved("ps-0a", 7000),
                    InetSocketAddress.createUnresolved("ps-0b", 7002));
            assertThat(shards.replicas("ps-1")).containsExactly(InetSocketAddress.createUnresolved("::1", 7100));
            RdmaProperties.ShardPolicy policy = context.getBean(RdmaProperties.class).getRsocket().getClient().getShard();
            assertThat(policy.getMaxAttempts()).isEqualTo(2);
            assertThat(policy.isHedging()).isFalse();
            assertThat(policy.getTimeout()).isEqualTo(Duration.ofMillis(250));
            assertThat(policy.isIdempotentByDefault()).isEqualTo(ShardClient.DEFAULT_IDEMPOTENT);
            assertThat(policy.getHedgeQuantile()).isEqualTo(ShardClient.DEFAULT_HEDGE_QUANTILE);
            assertThat(policy.getRetryBudgetRatio()).isEqualTo(ShardClient.DEFAULT_RETRY_BUDGET_RATIO);
            assertThat(policy.getConnectTimeout()).isEqualTo(ShardClient.DEFAULT_CONNECT_TIMEOUT);
            try {
                shards.shardClient("ps-9");
                throw new AssertionError("an unknown shard name was accepted");
            } catch (IllegalArgumentException e) {
                assertThat(e.getMessage()).contains("ps-9", "ps-0", "reactor.rdma.rsocket.client.shards.ps-9.replicas");
            }
        });
    }

    @Test
    void badValuesFailStartupWithAdvice() {
        failsNaming("reactor.rdma.rsocket.client.shards.ps.replicas=ps-0a", "reactor.rdma.rsocket.client.shards.ps.replicas", "host:port");
        failsNaming("reactor.rdma.rsocket.client.shards.ps.replicas=ps-0a:70000",
                "reactor.rdma.rsocket.client.shards.ps.replicas", "1 to 65535");
        failsNaming("reactor.rdma.rsocket.client.shard.max-attempts=0", "reactor.rdma.rsocket.client.shard.max-attempts", "at least 1");
        failsNaming("reactor.rdma.rsocket.client.shard.hedge-quantile=1.5", "reactor.rdma.rsocket.client.shard.hedge-quantile", "1.5");
        failsNaming("reactor.rdma.rsocket.client.shard.hedge-fraction=2", "reactor.rdma.rsocket.client.shard.hedge-fraction", "2.0");
        failsNaming("reactor.rdma.rsocket.client.shard.budget-window=100ms",
                "reactor.rdma.rsocket.client.shard.budget-window", "at least 1 s");
        failsNaming("reactor.rdma.rsocket.client.shard.timeout=0s", "reactor.rdma.rsocket.client.shard.timeout", "positive");
        failsNaming("reactor.rdma.rsocket.client.shard.data-mime-type=json",
                "reactor.rdma.rsocket.client.shard.data-mime-type", "application/json");
    }

    private void failsNaming(String setting, String property, String advice) {
        runner.withPropertyValues("reactor.rdma.rsocket.client.shards.ok.replicas=h:7000", setting).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new InvalidRdmaPropertyFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).as(setting + " is analysed").isNotNull();
            assertThat(analysis.getDescription()).contains(property, advice);
        });
    }

    @Test
    void idempotentCallsSucceedWhileAReplicaCloses() {
        AtomicInteger answeredA = new AtomicInteger();
        AtomicInteger answeredB = new AtomicInteger();
        InetSocketAddress a = replica(answeredA);
        InetSocketAddress b = replica(answeredB);
        RdmaResources[] clientResources = new RdmaResources[1];
        ShardClient[] kept = new ShardClient[1];
        runner.withPropertyValues("reactor.rdma.rsocket.client.shards.ps.replicas=127.0.0.1:" + a.getPort() + ",127.0.0.1:" + b.getPort(),
                "reactor.rdma.rsocket.client.shard.idempotent-by-default=true",
                "reactor.rdma.rsocket.client.shard.timeout=5s").run(context -> {
            assertThat(context).hasNotFailed();
            RdmaShardClients shards = context.getBean(RdmaShardClients.class);
            clientResources[0] = context.getBean(RdmaResources.class);
            ShardClient shard = shards.shardClient("ps");
            kept[0] = shard;
            assertThat(shards.shardClient("ps")).as("one shard client per name").isSameAs(shard);
            awaitLive(shard, 2);

            List<String> first = Flux.range(0, 200)
                    .flatMap(i -> shard.requestResponse(Mono.fromCallable(() -> DefaultPayload.create("c" + i)))
                    .map(RdmaShardClientsTest::data), 4).collectList().block(Duration.ofSeconds(30));
            assertThat(first).hasSize(200);
            assertThat(answeredA.get() + answeredB.get()).isGreaterThanOrEqualTo(200);

            RSocketRequester requester = shards.requester("ps");
            assertThat(requester.route("echo").data("via-requester").retrieveMono(String.class).block(Duration.ofSeconds(30)))
                    .isEqualTo("via-requester");

            // Replica A goes away (its resources disposed: server and connections closed) while 4 callers run:
            // its calls in flight fail and are retried on B; none fails.
            AtomicInteger done = new AtomicInteger();
            Mono<List<String>> run = Flux.range(0, 400).flatMap(i -> (i % 2 == 0
                            ? shard.requestResponse(Mono.fromCallable(() -> DefaultPayload.create("d" + i))).map(RdmaShardClientsTest::data)
                            : requester.route("echo").data("d" + i).retrieveMono(String.class))
                    .doOnNext(x -> done.incrementAndGet()), 4).collectList();
            List<String> answers = run.doOnSubscribe(s -> Mono.delay(Duration.ofMillis(50))
                    .subscribe(t -> replicaResources.get(0).dispose()))
                    .block(Duration.ofSeconds(40));
            assertThat(answers).hasSize(400).doesNotHaveDuplicates();
            assertThat(replicaResources.get(0).isDisposed()).isTrue();
            awaitLive(shard, 1);
            assertThat(shard.liveReplicas()).containsExactly("127.0.0.1:" + b.getPort());
        });
        assertThat(kept[0].isDisposed()).as("the shard client is disposed with the context").isTrue();
        assertThat(clientResources[0].isDisposed()).isTrue();
        awaitNoLiveBuffers(clientResources[0]);
    }

    @Test
    void eachShardCountsInItsOwnMetersTaggedWithItsName() {
        runner.withPropertyValues("reactor.rdma.rsocket.client.shards.ps-0.replicas=127.0.0.1:1",
                "reactor.rdma.rsocket.client.shards.ps-1.replicas=127.0.0.1:2").run(context -> {
            RdmaShardClients shards = context.getBean(RdmaShardClients.class);
            shards.shardClient("ps-0");
            shards.shardClient("ps-1");
            SimpleMeterRegistry meters = context.getBean(SimpleMeterRegistry.class);
            for (String meter : List.of("rdma.recovery.retries", "rdma.recovery.retry.budget.exhausted", "rdma.recovery.hedges",
                    "rdma.recovery.hedges.won")) {
                assertThat(meters.find(meter).tag("shard", "ps-0").counter()).as(meter + "{shard=ps-0}").isNotNull();
                assertThat(meters.find(meter).tag("shard", "ps-1").counter()).as(meter + "{shard=ps-1}").isNotNull()
                        .isNotSameAs(meters.find(meter).tag("shard", "ps-0").counter());
            }
            assertThat(meters.find("rdma.recovery.ejections").tag("shard", "ps-1").tag("replica", "127.0.0.1:2").counter())
                    .as("rdma.recovery.ejections{shard=ps-1,replica=127.0.0.1:2}").isNotNull();
        });
    }

    @Test
    void closingTheContextDisposesTheShardClientsBeforeTheResourcesTheyUse() {
        InetSocketAddress a = replica(new AtomicInteger());
        InetSocketAddress b = replica(new AtomicInteger());
        RdmaResources[] clientResources = new RdmaResources[1];
        ShardClient[] kept = new ShardClient[1];
        SimpleMeterRegistry[] meters = new SimpleMeterRegistry[1];
        runner.withPropertyValues("reactor.rdma.rsocket.client.shards.ps.replicas=127.0.0.1:" + a.getPort() + ",127.0.0.1:" + b.getPort())
                .run(context -> {
                    ShardClient shard = context.getBean(RdmaShardClients.class).shardClient("ps"); // created after the shard clients bean
                    kept[0] = shard;
                    meters[0] = context.getBean(SimpleMeterRegistry.class);
                    awaitLive(shard, 2);
                    clientResources[0] = context.getBean(RdmaResources.class);
                });
        assertThat(kept[0].isDisposed()).isTrue();
        kept[0].onClose().block(Duration.ofSeconds(30));
        assertThat(meters[0].find("rdma.recovery.ejections").counters().stream().mapToDouble(c -> c.count()).sum())
                .as("replicas ejected by the context's close (their resources disposed under them)").isZero();
        assertThat(clientResources[0].isDisposed()).isTrue();
        awaitNoLiveBuffers(clientResources[0]);
    }

    @Test
    void withTcpFallbackAReplicaIsReachedOverTcpWhenRdmaCannotOpen() throws Exception {
        // The shm provider refuses a directory others may read: RDMA cannot open, the replica is reached on RDMA port + 1 over TCP.
        Path dir = Paths.get("/dev/shm", "reactor-rdma-boot-shard-tcp-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        AtomicInteger answered = new AtomicInteger();
        CloseableChannel tcp = RSocketServer.create((setup, sending) -> Mono.just(new RSocket() {
                    @Override
                    public Mono<Payload> requestResponse(Payload p) {
                        try {
                            answered.incrementAndGet();
                            return Mono.just(DefaultPayload.create("tcp:" + p.getDataUtf8()));
                        } finally {
                            p.release();
                        }
                    }
                }))
                .bind(TcpServerTransport.create("127.0.0.1", 0)).block(Duration.ofSeconds(30));
        try {
            int rdmaPort = tcp.address().getPort() - 1;
            runner.withPropertyValues("reactor.rdma.provider=shm", "reactor.rdma.shm-directory=" + dir,
                    "reactor.rdma.rsocket.client.tcp-fallback=true",
                    "reactor.rdma.rsocket.client.shards.ps.replicas=127.0.0.1:" + rdmaPort).run(context -> {
                ShardClient shard = context.getBean(RdmaShardClients.class).shardClient("ps");
                List<String> answers = Flux.range(0, 20)
                        .concatMap(i -> shard.requestResponse(Mono.fromCallable(() -> DefaultPayload.create("t" + i)))
                        .map(RdmaShardClientsTest::data)).collectList().block(Duration.ofSeconds(30));
                assertThat(answers).hasSize(20).allMatch(a -> a.startsWith("tcp:t"));
                assertThat(answered.get()).isEqualTo(20);
                assertThat(context.getBean(RdmaRSocketRequesters.class).fallbacksInUse())
                        .as("the replica connection is on TCP").isEqualTo(1);
            });
        } finally {
            tcp.dispose();
            try (Stream<Path> w = Files.walk(dir)) {
                for (Path p : w.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    @Test
    void healthCountsTheEngineOfAKilledReplicaAsFailed() throws Exception {
        Path dir = Paths.get("/dev/shm", "reactor-rdma-boot-shard-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        String java = ProcessHandle.current().info().command().orElse("java");
        Process replica = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                ReplicaServerMain.class.getName(),
                dir.toString(), "4000", "1000", "0", "killed", "0").redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            String line = new BufferedReader(new InputStreamReader(replica.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertThat(line).isNotNull().startsWith("READY ");
            int port = Integer.parseInt(line.substring(6).trim());
            // The per-attempt timeout is raised from its 1 s default: the first call to a just-forked replica JVM
            // can take longer on a loaded host, and this test is about health, not timeouts.
            runner.withPropertyValues("reactor.rdma.provider=shm", "reactor.rdma.shm-directory=" + dir,
                    "reactor.rdma.rsocket.client.shards.ps.replicas=127.0.0.1:" + port,
                    "reactor.rdma.rsocket.client.shard.timeout=10s").run(context -> {
                ShardClient shard = context.getBean(RdmaShardClients.class).shardClient("ps");
                assertThat(shard.requestResponse(Mono.fromCallable(() -> DefaultPayload.create("x"))).map(RdmaShardClientsTest::data)
                        .block(Duration.ofSeconds(30))).isEqualTo("killed:x");
                RdmaHealthIndicator health = context.getBean(RdmaHealthIndicator.class);
                assertThat(health.health(true).getDetails()).containsEntry("engineFailures", 0L).containsEntry("engines", 1L);
                replica.destroyForcibly(); // SIGKILL: the replica's engine is lost, not closed
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!Long.valueOf(1L).equals(health.health(true).getDetails().get("engineFailures")) && System.nanoTime() < deadline) {
                    sleep();
                }
                assertThat(health.health(true).getDetails()).containsEntry("engineFailures", 1L);
                SimpleMeterRegistry meters = context.getBean(SimpleMeterRegistry.class);
                assertThat(meters.find("rdma.engine.failures").functionCounters()).isNotEmpty();
                assertThat(meters.find("rdma.engine.failures").functionCounters().stream()
                        .mapToDouble(c -> c.count()).sum()).isEqualTo(1.0);
            });
        } finally {
            replica.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            if (Files.exists(dir)) {
                try (Stream<Path> w = Files.walk(dir)) {
                    for (Path p : w.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
    }

    private static String data(Payload p) {
        try {
            return p.getDataUtf8();
        } finally {
            p.release();
        }
    }

    private static void awaitLive(ShardClient shard, int n) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (shard.liveReplicas().size() != n && System.nanoTime() < deadline) {
            sleep();
        }
        assertThat(shard.liveReplicas()).hasSize(n);
    }

    private static void awaitNoLiveBuffers(RdmaResources r) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (r.allocator().liveBuffers() != 0 && System.nanoTime() < deadline) {
            sleep();
        }
        assertThat(r.allocator().liveBuffers()).as(r.name() + " live buffers").isZero();
    }

    private static void sleep() {
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
