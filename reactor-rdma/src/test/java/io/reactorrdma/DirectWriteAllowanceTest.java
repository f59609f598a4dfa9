package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.memory.RegisteredByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Direct writes ({@link RdmaConnection#writeNow}) take none of the per-socket message allowance. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DirectWriteAllowanceTest {

    private RdmaResources serverResources;
    private RdmaResources clientResources;
    private DisposableRdmaServer server;

    @AfterEach
    void stop() {
        if (server != null) server.disposeNow(Duration.ofSeconds(10));
        clientResources.dispose();
        serverResources.dispose();
        assertThat(clientResources.allocator().liveBuffers()).as("client live buffers").isZero();
        assertThat(serverResources.allocator().liveBuffers()).as("server live buffers").isZero();
    }

    private static ByteBuf message(RdmaConnection c, int size, int value) {
        ByteBuf b = c.alloc().directBuffer(size, size);
        for (int i = 0; i < size; i++) b.writeByte(value + i);
        return b;
    }

    @Test
    void thousandsOfDirectWritesMixedWithMessagesComplete() throws Exception {
        // Before the fix every direct write took one message of the socket's allowance that nothing
        // gave back: after 32 (the window) less the messages in flight, the socket waited forever.
        serverResources = RdmaResources.builder("server").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF)
                .engine(EngineConfig.defaults()).build();
        clientResources = RdmaResources.builder("client").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF)
                .engine(EngineConfig.defaults()).build();
        CompletableFuture<RdmaConnection> serverSide = new CompletableFuture<>();
        server = RdmaServer.create().port(0).runOn(serverResources).handleConnection(c -> {
            serverSide.complete(c);
            return c.onDispose();
        }).bindNow();
        RdmaConnection client = RdmaClient.create().port(server.port()).runOn(clientResources).connectNow(Duration.ofSeconds(30));
        RdmaConnection peer = serverSide.get(30, TimeUnit.SECONDS);
        int count = 3000;
        ByteBuf destination = peer.allocateRemoteWritable(256);
        long address = RegisteredByteBufAllocator.addressOf(destination);
        int rkey = RegisteredByteBufAllocator.regionOf(destination).rkey();
        CountDownLatch writes = new CountDownLatch(count);
        CountDownLatch messages = new CountDownLatch(count);
        peer.remoteWrites().subscribe(n -> writes.countDown());
        peer.receive().subscribe(m -> {
            m.release();
            messages.countDown();
        });
        for (int i = 0; i < count; i++) {
            assertThat(client.writeNow(message(client, 1 + i % 256, i), address, rkey)).isTrue();
            assertThat(client.sendNow(message(client, 32, i))).isTrue();
        }
        assertThat(writes.await(60, TimeUnit.SECONDS)).as("direct writes seen: %d of %d", count - writes.getCount(), count).isTrue();
        assertThat(messages.await(60, TimeUnit.SECONDS)).as("messages received: %d of %d", count - messages.getCount(), count).isTrue();
        destination.release();
        client.dispose();
        client.onDispose().block(Duration.ofSeconds(10));
    }
}
