package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.AllocatorConfig;
import io.reactorrdma.verbs.ConnectionRejectedException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.reactorrdma.TestMessages.message;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Server capacity: a server thread domain takes {@code maxEnginesPerThread} engines; a client
 * beyond that must be rejected at once with a reason its error shows — not left waiting for its
 * connect timeout while the server leaks the request.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RdmaServerCapacityTest {

    private static final int CLIENTS = 200;
    private static final int MAX_ENGINES = 64;
    /** Small queues and buffers: 200 contexts in one JVM. */
    private static final EngineConfig SMALL = EngineConfig.defaults().withSendQueueDepth(8).withRecvQueueDepth(8).withEagerSize(1024);
    private static final AllocatorConfig SMALL_BLOCKS = AllocatorConfig.defaults().withBlockSize(1 << 20).withRetainedBytes(0);

    private RdmaResources serverResources;
    private final List<RdmaResources> clients = new ArrayList<>();
    private DisposableRdmaServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.disposeNow(Duration.ofSeconds(10));
        }
        Flux.fromIterable(clients).parallel(4).runOn(reactor.core.scheduler.Schedulers.boundedElastic())
                .doOnNext(RdmaResources::dispose).sequential().blockLast(Duration.ofSeconds(60));
        if (serverResources != null) {
            serverResources.dispose();
        }
        for (RdmaResources c : clients) {
            assertThat(c.allocator().liveBuffers()).as("client live buffers").isZero();
        }
        assertThat(serverResources.allocator().liveBuffers()).as("server live buffers").isZero();
    }

    private RdmaResources client(int i) {
        RdmaResources r = RdmaResources.builder("cap-client-" + i).provider("loopback").threads(1).idle(IdleStrategy.BLOCK)
                .engine(SMALL).allocator(SMALL_BLOCKS).maxEnginesPerThread(1).build();
        clients.add(r);
        return r;
    }

    /** The connection, or the error its connect failed with. */
    private static Mono<Object> attempt(RdmaResources client, int port) {
        return RdmaClient.create().port(port).runOn(client).connectTimeout(Duration.ofSeconds(15)).connect()
                .<Object>map(c -> c).onErrorResume(e -> Mono.just(e));
    }

    @Test
    void clientsBeyondTheServerThreadsCapacityAreRejectedWithTheReason() {
        serverResources = RdmaResources.builder("cap-server").provider("loopback").threads(1).idle(IdleStrategy.BLOCK)
                .engine(SMALL).allocator(SMALL_BLOCKS).maxEnginesPerThread(MAX_ENGINES).build();
        server = RdmaServer.create().port(0).runOn(serverResources).handle((in, out) -> out.send(in.receive())).bindNow();
        List<RdmaResources> contexts = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            contexts.add(client(i));
        }

        long start = System.nanoTime();
        List<Object> outcomes = Flux.fromIterable(contexts).flatMapSequential(c -> attempt(c, server.port()), 32)
                .collectList().block(Duration.ofSeconds(90));
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        List<RdmaConnection> accepted = new ArrayList<>();
        List<Throwable> refused = new ArrayList<>();
        RdmaResources firstAccepted = null;
        for (int i = 0; i < outcomes.size(); i++) {
            if (outcomes.get(i) instanceof RdmaConnection c) {
                accepted.add(c);
                if (firstAccepted == null) {
                    firstAccepted = contexts.get(i);
                }
            } else {
                refused.add((Throwable) outcomes.get(i));
            }
        }
        assertThat(refused).as("every refusal is a rejection that says why (took %s)", took)
                .allSatisfy(e -> assertThat(e).isInstanceOf(ConnectionRejectedException.class)
                        .hasMessageContaining("maxEnginesPerThread"));
        assertThat(accepted).hasSize(MAX_ENGINES);
        assertThat(refused).hasSize(CLIENTS - MAX_ENGINES);

        RdmaConnection first = accepted.get(0);
        assertThat(first.sendNow(message(first, 100, 1))).isTrue();
        ByteBuf echo = first.receive().next().block(Duration.ofSeconds(20));
        assertThat(echo).as("an accepted connection works").isNotNull();
        echo.release();

        // an engine that ends (its client context goes away) frees its place: a later client gets in
        firstAccepted.dispose();
        RdmaResources late = client(CLIENTS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Object outcome;
        do {
            outcome = attempt(late, server.port()).block(Duration.ofSeconds(30));
        } while (outcome instanceof ConnectionRejectedException && System.nanoTime() < deadline && sleep());
        assertThat(outcome).as("a client after one engine closed").isInstanceOf(RdmaConnection.class);
        for (RdmaConnection c : accepted) {
            c.dispose();
        }
        ((RdmaConnection) outcome).dispose();
        assertThat(took).as("200 connects with rejections are answered promptly, not by connect timeouts")
                .isLessThan(Duration.ofSeconds(60));
    }

    @Test
    void aRequestTheNextDomainCannotTakeGoesToADomainWithRoom() {
        serverResources = RdmaResources.builder("cap2-server").provider("loopback").threads(2).idle(IdleStrategy.BLOCK)
                .engine(SMALL).allocator(SMALL_BLOCKS).maxEnginesPerThread(2).build();
        server = RdmaServer.create().port(0).runOn(serverResources).handle((in, out) -> out.send(in.receive())).bindNow();
        // round-robin places clients 0 and 2 on domain 0, 1 and 3 on domain 1: both full
        List<RdmaResources> contexts = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            RdmaResources c = client(i);
            contexts.add(c);
            assertThat(attempt(c, server.port()).block(Duration.ofSeconds(30))).as("client %d", i).isInstanceOf(RdmaConnection.class);
        }
        for (int i = 4; i < 6; i++) {
            Object full = attempt(client(i), server.port()).block(Duration.ofSeconds(30));
            assertThat(full).as("both domains full").isInstanceOf(ConnectionRejectedException.class);
            assertThat((Throwable) full).hasMessageContaining("maxEnginesPerThread");
        }
        // client 1's engine (domain 1) ends; the round-robin turn of the next request is domain 0 (an even
        // count of turns so far), which is still full: the request must go on to domain 1
        contexts.get(1).dispose();
        Eventually.until(Duration.ofSeconds(30), () -> serverResources.domains()[1].hasRoom());
        Object outcome = attempt(client(6), server.port()).block(Duration.ofSeconds(30));
        assertThat(outcome).as("a request placed on the domain with room").isInstanceOf(RdmaConnection.class);
        RdmaConnection c = (RdmaConnection) outcome;
        assertThat(c.sendNow(message(c, 100, 5))).isTrue();
        ByteBuf echo = c.receive().next().block(Duration.ofSeconds(20));
        assertThat(echo).isNotNull();
        echo.release();
        c.dispose();
    }

    private static boolean sleep() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return true;
    }
}
