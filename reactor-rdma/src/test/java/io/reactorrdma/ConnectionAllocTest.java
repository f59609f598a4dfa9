package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.engine.EngineMetrics;
import io.reactorrdma.config.IdleStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static io.reactorrdma.TestMessages.crc;
import static io.reactorrdma.TestMessages.message;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A connection's {@code alloc()}: large buffers come from the connection's readable memory, so a
 * large message built there goes by pull, and its echo (which arrives in the server's readable
 * memory for that client) comes back by pull as well: no WRITE rendezvous round trip, no copy.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConnectionAllocTest {

    private RdmaResources serverResources;
    private RdmaResources clientResources;
    private DisposableRdmaServer server;

    private RdmaConnection start(EngineConfig engine) {
        serverResources = RdmaResources.builder("server").provider("loopback").threads(1).idle(IdleStrategy.BLOCK).engine(engine).build();
        clientResources = RdmaResources.builder("client").provider("loopback").threads(1).idle(IdleStrategy.BLOCK).engine(engine).build();
        server = RdmaServer.create().port(0).runOn(serverResources).handle((in, out) -> out.send(in.receive())).bindNow();
        return RdmaClient.create().port(server.port()).runOn(clientResources).connectNow();
    }

    @AfterEach
    void stop() {
        server.disposeNow(Duration.ofSeconds(10));
        clientResources.dispose();
        serverResources.dispose();
        assertThat(clientResources.allocator().liveBuffers()).as("client live buffers").isZero();
        assertThat(serverResources.allocator().liveBuffers()).as("server live buffers").isZero();
    }

    @Test
    void aLargeMessageFromTheConnectionsAllocatorAndItsEchoGoByPull() {
        RdmaConnection c = start(EngineConfig.defaults());
        long readableBefore = clientResources.allocator().readableLiveBuffers();
        ByteBuf small = c.alloc().directBuffer(EngineConfig.DEFAULT_EAGER_SIZE);
        assertThat(clientResources.allocator().readableLiveBuffers()).as("up to the peer's eager size: the local pool")
                .isEqualTo(readableBefore);
        small.release();
        int size = 256 * 1024;
        ByteBuf big = message(c, size, 42);
        assertThat(clientResources.allocator().readableLiveBuffers()).as("larger: the connection's readable pool")
                .isEqualTo(readableBefore + 1);
        long sum = crc(big);
        EngineMetrics client = clientResources.domains()[0].metrics();
        EngineMetrics srv = serverResources.domains()[0].metrics();
        Mono<ByteBuf> echo = c.inbound().receive().next();
        c.outbound().send(Mono.just(big)).then().block(Duration.ofSeconds(30));
        ByteBuf back = echo.block(Duration.ofSeconds(30));
        try {
            assertThat(back.readableBytes()).isEqualTo(size);
            assertThat(crc(back)).isEqualTo(sum);
        } finally {
            back.release();
        }
        assertThat(srv.messagesPulled()).as("the server pulled the message").isEqualTo(1);
        assertThat(client.messagesPulled()).as("the client pulled its echo").isEqualTo(1);
        assertThat(client.rendezvousRoundTrips() + srv.rendezvousRoundTrips()).as("WRITE rendezvous round trips").isZero();
        assertThat(client.copiesOnSend() + srv.copiesOnSend() + client.pullCopies() + srv.pullCopies()).as("copies").isZero();
        c.dispose();
    }

    @Test
    void withoutPullEverythingComesFromTheLocalPool() {
        RdmaConnection c = start(EngineConfig.defaults().withPullRendezvous(false));
        ByteBuf big = c.alloc().directBuffer(1 << 20);
        try {
            assertThat(clientResources.allocator().readableLiveBuffers()).isZero();
            assertThat(clientResources.allocator().local().statistics().liveBuffers()).isPositive();
        } finally {
            big.release();
        }
        c.dispose();
    }
}
