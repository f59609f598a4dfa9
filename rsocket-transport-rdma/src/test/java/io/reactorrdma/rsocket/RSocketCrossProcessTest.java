package io.reactorrdma.rsocket;

import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.SoftConfig;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.util.DefaultPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RSocket between two processes over the shm fabric: the server runs in a forked JVM
 * ({@link ShmRSocketServerMain}); all four interaction models cross, then the server is killed
 * with SIGKILL and the client's connection must close with a clear error within the bound.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RSocketCrossProcessTest {

    /** How long a silent peer may stay silent before it is declared dead (both sides). */
    private static final Duration PEER_TIMEOUT = Duration.ofMillis(1000);
    /** The bound the client's close must meet after the kill: generous, CI hosts are busy. */
    private static final Duration CLOSE_BOUND = Duration.ofSeconds(30);

    private Path dir;
    private Process serverProcess;
    private RdmaResources resources;
    private RSocket client;

    @BeforeEach
    void start() throws IOException {
        dir = Paths.get("/dev/shm", "reactor-rdma-rsocket-xp-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        String java = ProcessHandle.current().info().command().orElse("java");
        serverProcess = new ProcessBuilder(java, "-Xmx512m",
                "-D" + io.reactorrdma.config.SoftConfig.STRICT_PROPERTY + "=" + io.reactorrdma.config.SoftConfig.defaults().strict(),
                "-cp", System.getProperty("java.class.path"),
                ShmRSocketServerMain.class.getName(), dir.toString(), Long.toString(PEER_TIMEOUT.toMillis()))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String line = new BufferedReader(new InputStreamReader(serverProcess.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertThat(line).as("the server process's first line").isNotNull().startsWith("READY ");
        int port = Integer.parseInt(line.substring(6).trim());
        SoftConfig soft = SoftConfig.defaults().withShmDirectory(dir).withPeerTimeout(PEER_TIMEOUT);
        resources = RdmaResources.builder("rsocket-xp-client").provider("shm").softConfig(soft).threads(1)
                .idle(IdleStrategy.BLOCK).build();
        client = RSocketConnector.create().payloadDecoder(PayloadDecoder.ZERO_COPY)
                .connect(RdmaClientTransport.create(RdmaClient.create().host("127.0.0.1").port(port).runOn(resources)))
                .block(Duration.ofSeconds(30));
    }

    @AfterEach
    void stop() throws Exception {
        client.dispose();
        resources.dispose();
        assertThat(resources.allocator().liveBuffers()).as("client live registered buffers").isZero();
        serverProcess.getOutputStream().close();
        if (!serverProcess.waitFor(20, TimeUnit.SECONDS)) {
            serverProcess.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (Files.exists(dir)) {
            try (Stream<Path> w = Files.walk(dir)) {
                for (Path p : w.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
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

    @Test
    void allFourInteractionModelsCrossProcesses() {
        assertThat(client.requestResponse(DefaultPayload.create("hello")).map(RSocketCrossProcessTest::data)
                .block(Duration.ofSeconds(30))).isEqualTo("re:hello");

        assertThat(client.requestStream(DefaultPayload.create("1000")).map(RSocketCrossProcessTest::data)
                .collectList().block(Duration.ofSeconds(60)))
                .hasSize(1000).startsWith("item 0").endsWith("item 999");

        assertThat(client.requestChannel(Flux.range(0, 500).map(i -> DefaultPayload.create("m" + i)))
                .map(RSocketCrossProcessTest::data).collectList().block(Duration.ofSeconds(60)))
                .hasSize(500).startsWith("ch:m0").endsWith("ch:m499");

        Flux.range(0, 100).concatMap(i -> client.fireAndForget(DefaultPayload.create("f" + i))).blockLast(Duration.ofSeconds(30));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String count;
        do {
            count = client.requestResponse(DefaultPayload.create("count")).map(RSocketCrossProcessTest::data).block(Duration.ofSeconds(30));
        } while (!"100".equals(count) && System.nanoTime() < deadline);
        assertThat(count).as("fire-and-forgets the server saw").isEqualTo("100");
    }

    @Test
    void killingTheServerClosesTheClientWithAClearErrorWithinTheBound() {
        // an endless stream is in flight when the server dies: it must end in an error, not hang
        StepVerifier.create(client.requestStream(DefaultPayload.create(Long.toString(Long.MAX_VALUE)))
                .map(RSocketCrossProcessTest::data), 16)
                .expectNextCount(16)
                .then(serverProcess::destroyForcibly) // SIGKILL: no goodbye
                .thenRequest(Long.MAX_VALUE)
                .thenConsumeWhile(s -> true)
                .expectError(ClosedChannelException.class) // RSocket 1.1 ends every active stream with its own instance
                .verify(CLOSE_BOUND);
        StepVerifier.create(client.onClose()).expectComplete().verify(CLOSE_BOUND);
        assertThat(client.isDisposed()).isTrue();
        // a request after the close gets the transport's error: it names the peer and the cause
        StepVerifier.create(client.requestResponse(DefaultPayload.create("after")))
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(ClosedChannelException.class);
                    assertThat(e.getCause()).as("the cause of the close").isNotNull();
                    assertThat(e.getCause().getMessage()).contains("peer");
                })
                .verify(CLOSE_BOUND);
    }
}
