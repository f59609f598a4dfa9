package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.engine.ThreadDomain;
import io.reactorrdma.config.SoftConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code EngineMetrics.engineFailures} ({@code rdma.engine.failures}) counts engines whose peer was
 * lost, not engines closed by either side: a connection closed by the client or by the server
 * (loopback resources disposed on either side, and a forked shm server exiting cleanly) counts nothing; a shm peer killed with
 * SIGKILL or stopped with SIGSTOP past the peer timeout counts one.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EngineFailuresTest {

    /** Short enough for a quick stop test, long enough that a live peer on a loaded 2-core machine never looks silent. */
    private static final Duration PEER_TIMEOUT = Duration.ofSeconds(2);

    private final List<RdmaResources> resources = new ArrayList<>();
    private Process server;
    private Path dir;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL also ends a stopped process
        }
        for (RdmaResources r : resources) {
            r.dispose();
            assertThat(r.allocator().liveBuffers()).as(r.name() + " live buffers").isZero();
        }
        if (dir != null && Files.exists(dir)) {
            try (Stream<Path> w = Files.walk(dir)) {
                for (Path p : w.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private RdmaResources loopback(String name) {
        RdmaResources r = RdmaResources.builder(name).provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        resources.add(r);
        return r;
    }

    private static long failures(RdmaResources r) {
        long n = 0;
        for (ThreadDomain d : r.domains()) {
            n += d.metrics().engineFailures();
        }
        return n;
    }

    private static long engines(RdmaResources r) {
        long n = 0;
        for (ThreadDomain d : r.domains()) {
            n += d.metrics().engines();
        }
        return n;
    }

    /** Sends one message on {@code c} and waits for its echo, so the engine is fully up. */
    private static void echoOnce(RdmaConnection c) {
        c.outbound().send(Mono.just(c.alloc().directBuffer(8).writeLong(7))).then().block(Duration.ofSeconds(30));
        c.inbound().receive().next().doOnNext(ByteBuf::release).block(Duration.ofSeconds(30));
    }

    @Test
    void enginesClosedByEitherSideAreNoFailures() {
        RdmaResources serverSide = loopback("failures-server");
        DisposableRdmaServer bound = RdmaServer.create().port(0).runOn(serverSide).handle((in, out) -> out.send(in.receive())).bindNow();

        // The client side closes: its resources dispose, closing their engines (queue pairs).
        RdmaResources closingClient = loopback("failures-client-a");
        RdmaConnection a = RdmaClient.create().port(bound.port()).runOn(closingClient).connectNow();
        echoOnce(a);
        assertThat(engines(serverSide)).isEqualTo(1);
        closingClient.dispose();
        Eventually.until(() -> engines(serverSide) == 0);

        // The server side closes: its resources dispose.
        RdmaResources client = loopback("failures-client-b");
        RdmaConnection b = RdmaClient.create().port(bound.port()).runOn(client).connectNow();
        echoOnce(b);
        bound.disposeNow(Duration.ofSeconds(30));
        serverSide.dispose();
        b.onDispose().block(Duration.ofSeconds(30));
        Eventually.until(() -> engines(client) == 0);

        assertThat(failures(closingClient)).as("engines of the client that closed").isZero();
        assertThat(failures(client)).as("engines of the client whose server closed").isZero();
        assertThat(failures(serverSide)).as("server engines").isZero();
    }

    /** Forks {@link ShmEchoServerMain} and connects to it; returns the client's resources and connection. */
    private RdmaConnection connectToForkedServer(RdmaResources[] clientOut) throws IOException {
        dir = Paths.get("/dev/shm", "reactor-rdma-failures-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        String java = ProcessHandle.current().info().command().orElse("java");
        server = new ProcessBuilder(java, "-Xmx256m", "-D" + SoftConfig.STRICT_PROPERTY + "=" + SoftConfig.defaults().strict(),
                "-cp", System.getProperty("java.class.path"), ShmEchoServerMain.class.getName(), dir.toString(),
                String.valueOf(PEER_TIMEOUT.toMillis()))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String line = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertThat(line).isNotNull().startsWith("READY ");
        int port = Integer.parseInt(line.substring(6).trim());
        SoftConfig soft = SoftConfig.defaults().withShmDirectory(dir).withPeerTimeout(PEER_TIMEOUT);
        RdmaResources client = RdmaResources.builder("failures-shm-client").provider("shm").softConfig(soft).threads(1)
                .idle(IdleStrategy.BACK_OFF).engine(EngineConfig.defaults()).build();
        resources.add(client);
        clientOut[0] = client;
        RdmaConnection c = RdmaClient.create().port(port).runOn(client).connectNow();
        echoOnce(c);
        return c;
    }

    @Test
    void aShmServerThatClosesIsNoFailure() throws Exception {
        RdmaResources[] client = new RdmaResources[1];
        RdmaConnection c = connectToForkedServer(client);
        server.getOutputStream().close(); // ShmEchoServerMain disposes its server and exits
        assertThat(server.waitFor(30, TimeUnit.SECONDS)).isTrue();
        c.onDispose().block(Duration.ofSeconds(30));
        Eventually.until(() -> engines(client[0]) == 0);
        Thread.sleep(1000); // the exited process's closed socket, noticed at the provider's next tick, must not count
        assertThat(failures(client[0])).isZero();
    }

    @Test
    void aKilledShmPeerIsAFailure() throws Exception {
        RdmaResources[] client = new RdmaResources[1];
        RdmaConnection c = connectToForkedServer(client);
        assertThat(failures(client[0])).isZero();
        server.destroyForcibly(); // SIGKILL: no goodbye
        c.onDispose().block(Duration.ofSeconds(30));
        Eventually.until(() -> failures(client[0]) == 1);
        Eventually.until(() -> engines(client[0]) == 0);
        assertThat(failures(client[0])).as("counted once").isEqualTo(1);
    }

    @Test
    void aStoppedShmPeerIsAFailure() throws Exception {
        RdmaResources[] client = new RdmaResources[1];
        RdmaConnection c = connectToForkedServer(client);
        Process stop = new ProcessBuilder("kill", "-STOP", String.valueOf(server.pid())).inheritIO().start();
        assertThat(stop.waitFor(10, TimeUnit.SECONDS) && stop.exitValue() == 0).as("kill -STOP").isTrue();
        try {
            c.onDispose().block(Duration.ofSeconds(30)); // after the peer timeout of silence
            Eventually.until(() -> failures(client[0]) == 1);
            Eventually.until(() -> engines(client[0]) == 0);
            assertThat(failures(client[0])).as("counted once").isEqualTo(1);
        } finally {
            new ProcessBuilder("kill", "-CONT", String.valueOf(server.pid())).inheritIO().start().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
