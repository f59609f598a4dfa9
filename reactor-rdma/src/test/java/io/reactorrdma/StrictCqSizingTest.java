package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.SoftConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.reactorrdma.TestMessages.message;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Strict mode, completion-queue sizing: every receive-queue slot may hold a completion too, so a thread domain's
 * completion queue must be sized for send + receive depths of all its engines. Strict soft
 * contexts reserve both, as an RNIC needs (and the disni provider does).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class StrictCqSizingTest {

    private static final int ENGINES = 8;
    private static final SoftConfig STRICT = SoftConfig.defaults().withStrict(true);

    private RdmaResources serverResources;
    private final List<RdmaResources> clients = new ArrayList<>();
    private DisposableRdmaServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.disposeNow(Duration.ofSeconds(10));
        }
        for (RdmaResources c : clients) {
            c.dispose();
        }
        if (serverResources != null) {
            serverResources.dispose();
        }
        for (RdmaResources c : clients) {
            assertThat(c.allocator().liveBuffers()).as("client live buffers").isZero();
        }
        assertThat(serverResources.allocator().liveBuffers()).as("server live buffers").isZero();
    }

    @Test
    void aServerThreadTakesAsManyEnginesAsItIsSizedFor() {
        serverResources = RdmaResources.builder("sizing-server").provider("loopback").softConfig(STRICT).threads(1)
                .maxEnginesPerThread(ENGINES).idle(IdleStrategy.BLOCK).build();
        server = RdmaServer.create().port(0).runOn(serverResources).handle((in, out) -> out.send(in.receive())).bindNow();
        List<RdmaConnection> connections = new ArrayList<>();
        for (int i = 0; i < ENGINES; i++) {
            RdmaResources client = RdmaResources.builder("sizing-client-" + i).provider("loopback").softConfig(STRICT).threads(1)
                    .idle(IdleStrategy.BLOCK).build();
            clients.add(client);
            RdmaConnection c = RdmaClient.create().port(server.port()).runOn(client).connectTimeout(Duration.ofSeconds(5))
                    .connectNow(Duration.ofSeconds(15));
            connections.add(c);
        }
        for (int i = 0; i < ENGINES; i++) {
            RdmaConnection c = connections.get(i);
            assertThat(c.sendNow(message(c, 100, i))).isTrue();
            ByteBuf echo = c.receive().next().block(Duration.ofSeconds(20));
            assertThat(echo).as("echo on connection %d", i).isNotNull();
            echo.release();
            c.dispose();
        }
    }
}
