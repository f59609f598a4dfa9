package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.SoftConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static io.reactorrdma.TestMessages.crc;
import static io.reactorrdma.TestMessages.message;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Strict mode, early completions: on hardware a queue pair's number is 0 until connect/accept attaches it, and
 * the server's accept returns milliseconds after the client may send. A SOCKET_OPEN that arrives
 * before the server's engine is registered must be kept under a number valid then, not dropped.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StrictEarlyCompletionTest {

    /** Long enough that the client's first message always lands before the server's accept returns. */
    private static final SoftConfig STRICT = SoftConfig.defaults().withStrict(true).withCmDelay(Duration.ofMillis(50));

    private RdmaResources serverResources;
    private RdmaResources clientResources;
    private DisposableRdmaServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.disposeNow(Duration.ofSeconds(10));
        }
        if (clientResources != null) {
            clientResources.dispose();
        }
        if (serverResources != null) {
            serverResources.dispose();
        }
        assertThat(clientResources.allocator().liveBuffers()).as("client live buffers").isZero();
        assertThat(serverResources.allocator().liveBuffers()).as("server live buffers").isZero();
    }

    @Test
    void messagesSentRightAfterConnectReachAServerWhoseAcceptHasNotReturned() {
        serverResources = RdmaResources.builder("early-server").provider("loopback").softConfig(STRICT).threads(1)
                .idle(IdleStrategy.BLOCK).build();
        server = RdmaServer.create().port(0).runOn(serverResources).handle((in, out) -> out.send(in.receive())).bindNow();
        for (int round = 0; round < 3; round++) {
            if (clientResources != null) {
                clientResources.dispose();
                assertThat(clientResources.allocator().liveBuffers()).as("client live buffers").isZero();
            }
            // a new client context each round: its sockets would share one engine otherwise
            clientResources = RdmaResources.builder("early-client-" + round).provider("loopback").softConfig(STRICT).threads(1)
                    .idle(IdleStrategy.BLOCK).build();
            RdmaConnection c = RdmaClient.create().port(server.port()).runOn(clientResources).connectNow();
            ByteBuf m = message(c, 1000, round);
            long sum = crc(m);
            assertThat(c.sendNow(m)).isTrue();
            ByteBuf echo = c.receive().next().block(Duration.ofSeconds(20));
            assertThat(echo).as("echo of the message sent right after connect (round %d); null = the server lost it", round).isNotNull();
            try {
                assertThat(crc(echo)).isEqualTo(sum);
            } finally {
                echo.release();
            }
            c.dispose();
            c.onDispose().block(Duration.ofSeconds(20));
        }
    }
}
