package io.reactorrdma.rsocket.shard;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.rsocket.testing.ReplicaServerMain;
import io.rsocket.Payload;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.util.DefaultPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Chaos over the shm fabric with three replica processes ({@link ReplicaServerMain}) under a
 * closed loop of idempotent request-responses from 8 concurrent callers: one replica is killed
 * (SIGKILL) or stopped (SIGSTOP), and no call may fail; the replica must be ejected and, once it
 * is back, receive requests again. Afterwards the client holds no buffers, threads or shm files.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReplicaChaosTest {

    /**
     * Silence bound of the shm provider on both sides, and the engine heartbeat that keeps a live
     * link from looking silent (defaults 4 s and 1 s; shorter here, with the heartbeat well inside the bound).
     */
    static final Duration PEER_TIMEOUT = Duration.ofMillis(1500);
    static final Duration HEARTBEAT = Duration.ofMillis(250);
    private static final String CLIENT = "replica-chaos-client";

    private Path dir;
    private final Process[] replicas = new Process[3];
    private final int[] ports = new int[3];
    private RdmaResources resources;
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private ShardClient client;
    private final AtomicBoolean loading = new AtomicBoolean();
    private Disposable load;
    private final Map<String, AtomicLong> answersBy = new ConcurrentHashMap<>();
    private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
    private final AtomicLong calls = new AtomicLong();

    /** The shard client's DEBUG log (which replica, and why) goes to stderr: it explains a failure here. */
    private static final java.util.logging.Logger RECOVERY_LOG = java.util.logging.Logger.getLogger(ShardClient.class.getName());

    private static final java.util.logging.Handler DEBUG_HANDLER = new java.util.logging.ConsoleHandler();

    @org.junit.jupiter.api.BeforeAll
    static void debugLog() {
        DEBUG_HANDLER.setLevel(java.util.logging.Level.FINE);
        RECOVERY_LOG.setLevel(java.util.logging.Level.FINE);
        RECOVERY_LOG.addHandler(DEBUG_HANDLER);
    }

    @org.junit.jupiter.api.AfterAll
    static void quietLog() {
        RECOVERY_LOG.removeHandler(DEBUG_HANDLER);
        RECOVERY_LOG.setLevel(null);
    }

    @BeforeEach
    void start() throws IOException {
        dir = Paths.get("/dev/shm", "reactor-rdma-replica-chaos-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        for (int i = 0; i < 3; i++) {
            ports[i] = startReplica(i, 0);
        }
        SoftConfig soft = SoftConfig.defaults().withShmDirectory(dir).withPeerTimeout(PEER_TIMEOUT);
        resources = RdmaResources.builder(CLIENT).provider("shm").softConfig(soft).threads(1).idle(IdleStrategy.BLOCK)
                .engine(EngineConfig.defaults().withHeartbeatInterval(HEARTBEAT)).build();
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (int port : ports) {
            addresses.add(new InetSocketAddress("127.0.0.1", port));
        }
        client = ShardClient.builder().replicas(addresses)
                .transport(a -> RdmaClientTransport.create(RdmaClient.create().host(a.getHostString()).port(a.getPort())
                        .connectTimeout(Duration.ofSeconds(3)).runOn(resources)))
                .connector(c -> c.payloadDecoder(PayloadDecoder.ZERO_COPY))
                .meterRegistry(meters)
                .idempotentByDefault(true)
                .timeout(Duration.ofSeconds(1))
                .maxAttempts(5)
                // the shm peer timeout finds the stopped replica here; keepalive stays the backstop, with a
                // bound a loaded 2-core CI host does not reach by accident (2 s did, now and then)
                .keepAlive(Duration.ofSeconds(1), Duration.ofSeconds(10))
                .connectTimeout(Duration.ofSeconds(3))
                .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500))
                .connect().block(Duration.ofSeconds(30));
        await("all three replicas live", Duration.ofSeconds(20), () -> client.liveReplicas().size() == 3);
    }

    private int startReplica(int i, int port) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        replicas[i] = new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-D" + SoftConfig.STRICT_PROPERTY + "=" + SoftConfig.defaults().strict(),
                "-cp", System.getProperty("java.class.path"), ReplicaServerMain.class.getName(),
                dir.toString(), Long.toString(PEER_TIMEOUT.toMillis()), Long.toString(HEARTBEAT.toMillis()),
                Integer.toString(port), "r" + i, "0")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String line = new BufferedReader(new InputStreamReader(replicas[i].getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertThat(line).as("replica r" + i + "'s first line").isNotNull().startsWith("READY ");
        return Integer.parseInt(line.substring(6).trim());
    }

    @AfterEach
    void stop() throws Exception {
        try {
            stopLoad();
            if (client != null) {
                client.dispose();
                client.onClose().block(Duration.ofSeconds(30));
            }
            if (resources != null) {
                resources.dispose();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (resources.allocator().liveBuffers() != 0 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertThat(resources.allocator().liveBuffers()).as("client live buffers").isZero();
                await("no client threads left", Duration.ofSeconds(20), () -> clientThreads().isEmpty());
            }
        } finally {
            for (Process p : replicas) {
                if (p == null) {
                    continue;
                }
                p.toHandle().children().count(); // nothing forked below it
                if (p.isAlive()) {
                    Runtime.getRuntime().exec(new String[]{"kill", "-CONT", Long.toString(p.pid())}).waitFor();
                    p.getOutputStream().close();
                    if (!p.waitFor(20, TimeUnit.SECONDS)) {
                        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    }
                }
            }
        }
        List<Path> left;
        try (Stream<Path> w = Files.exists(dir) ? Files.list(dir) : Stream.empty()) {
            left = w.toList();
        }
        try {
            assertThat(left).as("shm files left after every process ended").isEmpty();
        } finally {
            if (Files.exists(dir)) {
                try (Stream<Path> w = Files.walk(dir)) {
                    for (Path p : w.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
    }

    private static List<String> clientThreads() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).filter(n -> n.startsWith(CLIENT)).toList();
    }

    private static String data(Payload p) {
        try {
            return p.getDataUtf8();
        } finally {
            p.release();
        }
    }

    /** 8 callers, each sending its next idempotent request-response as soon as the last answered. */
    private void startLoad() {
        loading.set(true);
        load = Flux.range(0, 8).flatMap(caller -> Mono.defer(() -> client.requestResponse(
                                Mono.fromCallable(() -> DefaultPayload.create("c" + caller + "-" + calls.incrementAndGet()))))
                        .map(ReplicaChaosTest::data)
                        .doOnNext(answer -> answersBy.computeIfAbsent(answer.substring(0, answer.indexOf(':')),
                                k -> new AtomicLong()).incrementAndGet())
                        .then()
                        .onErrorResume(e -> {
                            failures.add(e);
                            return Mono.empty();
                        })
                        .repeat(loading::get), 8)
                .subscribe();
    }

    private void stopLoad() throws InterruptedException {
        loading.set(false);
        if (load != null) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!load.isDisposed() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            load.dispose();
            load = null;
        }
    }

    private long answers(String replica) {
        AtomicLong n = answersBy.get(replica);
        return n == null ? 0 : n.get();
    }

    private double ejections(int replica) {
        var c = meters.find("rdma.recovery.ejections").tag("replica", "127.0.0.1:" + ports[replica]).counter();
        return c == null ? 0 : c.count();
    }

    private static long await(String what, Duration bound, BooleanSupplier condition) {
        long start = System.nanoTime();
        long deadline = start + bound.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() < deadline).as(what + " within " + bound).isTrue();
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        return System.nanoTime() - start;
    }

    private static void signal(String sig, Process p) throws Exception {
        assertThat(new ProcessBuilder("kill", "-" + sig, Long.toString(p.pid())).start().waitFor()).as("kill -" + sig).isZero();
    }

    @Test
    void killingOneOfThreeReplicasFailsNoCallAndItReturnsAfterARestart() throws Exception {
        startLoad();
        await("every replica answering", Duration.ofSeconds(20), () -> answers("r0") > 50 && answers("r1") > 50 && answers("r2") > 50);

        double ejectionsBefore = ejections(0);
        replicas[0].destroyForcibly(); // SIGKILL: no goodbye
        long ejectedAfter = await("r0 ejected", Duration.ofSeconds(20), () -> ejections(0) > ejectionsBefore);
        replicas[0].waitFor(10, TimeUnit.SECONDS);
        System.out.printf("kill -9: replica ejected after %d ms%n", TimeUnit.NANOSECONDS.toMillis(ejectedAfter));
        assertThat(Duration.ofNanos(ejectedAfter)).as("ejection after the kill").isLessThan(Duration.ofSeconds(2));
        assertThat(client.liveReplicas()).doesNotContain("127.0.0.1:" + ports[0]);
        long callsBefore = calls.get();
        await("calls going on without r0", Duration.ofSeconds(20), () -> calls.get() > callsBefore + 500);

        assertThat(startReplica(0, ports[0])).as("restarted on the same port").isEqualTo(ports[0]);
        long r0Before = answers("r0");
        await("r0 answering again after its restart", Duration.ofSeconds(20), () -> answers("r0") > r0Before + 20);
        stopLoad();
        assertThat(failures).as("failed calls").isEmpty();
        System.out.printf("kill -9: %d calls, answers %s, retries %.0f, hedges %.0f%n", calls.get(), answersBy,
                counted("rdma.recovery.retries"), counted("rdma.recovery.hedges"));
    }

    @Test
    void aStoppedReplicaIsEjectedByHeartbeatWithoutFailedCallsAndReturnsAfterSigcont() throws Exception {
        startLoad();
        await("every replica answering", Duration.ofSeconds(20), () -> answers("r0") > 50 && answers("r1") > 50 && answers("r2") > 50);

        double ejectionsBefore = ejections(1);
        signal("STOP", replicas[1]); // alive but silent: its socket stays open
        long ejectedAfter = await("r1 ejected", Duration.ofSeconds(15), () -> ejections(1) > ejectionsBefore);
        System.out.printf("SIGSTOP: replica ejected after %d ms%n", TimeUnit.NANOSECONDS.toMillis(ejectedAfter));
        assertThat(Duration.ofNanos(ejectedAfter)).as("ejection by the peer timeout after SIGSTOP, with slack for CI")
                .isLessThan(PEER_TIMEOUT.plusSeconds(5));
        long callsBefore = calls.get();
        await("calls going on without r1", Duration.ofSeconds(20), () -> calls.get() > callsBefore + 500);

        signal("CONT", replicas[1]);
        long r1Before = answers("r1");
        await("r1 answering again after SIGCONT", Duration.ofSeconds(25), () -> answers("r1") > r1Before + 20);
        stopLoad();
        assertThat(failures).as("failed calls").isEmpty();
        System.out.printf("SIGSTOP: %d calls, answers %s, retries %.0f, hedges %.0f (won %.0f)%n", calls.get(), answersBy,
                counted("rdma.recovery.retries"), counted("rdma.recovery.hedges"),
                counted("rdma.recovery.hedges.won"));
    }

    /** A meter summed over its tags (the shard client tags them with its shard). */
    private double counted(String name) {
        return meters.find(name).counters().stream().mapToDouble(c -> c.count()).sum();
    }
}
