package io.reactorrdma;

import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.SoftConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Connections and resources end without leaking sockets, threads or shm files, and without stalls. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RdmaLifecycleTest {

    private static RdmaResources.Builder loopback(String name) {
        return RdmaResources.builder(name).provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF);
    }

    @Test
    void aConnectCancelledWhileItsSocketOpensLeavesNoSocketOpen() throws Exception {
        RdmaResources serverResources = loopback("server").build();
        RdmaResources clientResources = loopback("client").build();
        BlockingQueue<RdmaConnection> accepted = new LinkedBlockingQueue<>();
        DisposableRdmaServer server = RdmaServer.create().port(0).runOn(serverResources)
                .handleConnection(c -> {
                    accepted.add(c);
                    return c.onDispose();
                })
                .bindNow();
        try {
            RdmaClient client = RdmaClient.create().port(server.port()).runOn(clientResources);
            RdmaConnection first = client.connectNow(); // the engine exists: the next socket opens on the I/O thread
            assertThat(accepted.poll(30, TimeUnit.SECONDS)).isNotNull();
            CountDownLatch gate = new CountDownLatch(1);
            clientResources.domains()[0].execute(() -> {
                try {
                    gate.await(30, TimeUnit.SECONDS); // holds the I/O thread: the socket opens after the cancel
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Disposable connecting = client.connect().subscribe(c -> { }, e -> { });
            connecting.dispose();
            gate.countDown();
            RdmaConnection opened = accepted.poll(30, TimeUnit.SECONDS);
            assertThat(opened).as("the socket was opened at the server").isNotNull();
            opened.onDispose().block(Duration.ofSeconds(30)); // the client closed the socket nobody took
            assertThat(first.isDisposed()).isFalse();
            first.dispose();
        } finally {
            server.disposeNow(Duration.ofSeconds(10));
            clientResources.dispose();
            serverResources.dispose();
        }
        assertThat(clientResources.allocator().liveBuffers()).isZero();
        assertThat(serverResources.allocator().liveBuffers()).isZero();
    }

    @Test
    void disposeCalledOnAnIoThreadDoesNotWaitForItself() throws Exception {
        RdmaResources resources = loopback("self").threads(2).build();
        CompletableFuture<Long> took = new CompletableFuture<>();
        resources.domains()[0].execute(() -> {
            long start = System.nanoTime();
            resources.dispose();
            took.complete(System.nanoTime() - start);
        });
        // It cannot wait for its own thread to end; joining itself cost 10 s per call before.
        assertThat(Duration.ofNanos(took.get(60, TimeUnit.SECONDS))).isLessThan(Duration.ofSeconds(5));
        assertThat(resources.isDisposed()).isTrue();
        resources.disposeLater().block(Duration.ofSeconds(30)); // completes once the I/O threads ended
        Eventually.until(() -> ioThreadsOf("self").isEmpty()); // they end right after the last step
    }

    @Test
    void disposeLaterDisposesWhenSubscribedAndCompletesWhenAllIsClosed() throws Exception {
        RdmaResources resources = loopback("later").threads(2).build();
        BlockingQueue<RdmaConnection> accepted = new LinkedBlockingQueue<>();
        DisposableRdmaServer server = RdmaServer.create().port(0).runOn(resources)
                .handleConnection(c -> {
                    accepted.add(c);
                    return c.onDispose();
                })
                .bindNow();
        RdmaConnection c = RdmaClient.create().port(server.port()).runOn(resources).connectNow();
        c.outbound().send(reactor.core.publisher.Mono.fromCallable(() -> TestMessages.message(c, 100, 1))).then()
                .block(Duration.ofSeconds(30));
        var later = resources.disposeLater();
        assertThat(resources.isDisposed()).as("nothing happens before the Mono is subscribed").isFalse();
        later.block(Duration.ofSeconds(30));
        assertThat(resources.isDisposed()).isTrue();
        assertThat(c.onDispose().toFuture()).isDone();
        Eventually.until(() -> ioThreadsOf("later").isEmpty()); // they end right after the last step
        assertThat(resources.allocator().liveBuffers()).as("the unread message was released").isZero();
        server.disposeNow(Duration.ofSeconds(10));
        resources.disposeLater().block(Duration.ofSeconds(1)); // again: already done
    }

    private static List<String> ioThreadsOf(String resources) {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                .filter(n -> n.startsWith(resources + "-io-")).toList();
    }

    @Test
    void aSilentShmClientDoesNotStallTheAcceptsOfOthers() throws Exception {
        RdmaResources serverResources = RdmaResources.builder("silent-server").provider("shm").threads(1).build();
        RdmaResources clientResources = RdmaResources.builder("silent-client").provider("shm").threads(1).build();
        DisposableRdmaServer server = RdmaServer.create().port(0).runOn(serverResources)
                .handleConnection(RdmaConnection::onDispose)
                .bindNow();
        List<SocketChannel> silent = new ArrayList<>();
        try {
            Path socket = SoftConfig.fromSystemProperties().shmDirectory().resolve("port-" + server.port() + ".sock");
            for (int i = 0; i < 4; i++) { // each held the accept loop for its 5 s handshake read, one after the other
                silent.add(SocketChannel.open(UnixDomainSocketAddress.of(socket)));
            }
            RdmaConnection c = RdmaClient.create().port(server.port()).runOn(clientResources)
                    .connectTimeout(Duration.ofSeconds(10)).connectNow();
            c.dispose();
        } finally {
            for (SocketChannel ch : silent) {
                ch.close();
            }
            server.disposeNow(Duration.ofSeconds(10));
            clientResources.dispose();
            serverResources.dispose();
        }
    }

    @Test
    void theGlobalResourcesRemoveTheirShmFilesAtExit() throws Exception {
        Path dir = Path.of(SoftConfig.fromSystemProperties().shmDirectory().getParent().toString(),
                "reactor-rdma-global-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx256m", "-D" + SoftConfig.STRICT_PROPERTY + "=" + SoftConfig.defaults().strict(),
                "-cp", System.getProperty("java.class.path"),
                "-Dreactor.rdma.provider=shm", "-Dreactor.rdma.soft.shmDir=" + dir,
                GlobalResourcesMain.class.getName())
                .redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(out).contains("ready");
            assertThat(p.exitValue()).isZero();
            try (Stream<Path> left = Files.list(dir)) {
                assertThat(left.map(f -> f.getFileName().toString())).as("files left in " + dir).isEmpty();
            }
        } finally {
            p.destroyForcibly();
            deleteTree(dir);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }
}
