package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.memory.RegisteredByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Direct writes ({@link RdmaConnection#writeNow}) take none of the per-socket message allowance. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DirectWriteAllowanceTest {

    @RegisterExtension
    final RdmaPair pair = new RdmaPair();

    private static ByteBuf message(RdmaConnection c, int size, int value) {
        ByteBuf b = c.alloc().directBuffer(size, size);
        for (int i = 0; i < size; i++) {
            b.writeByte(value + i);
        }
        return b;
    }

    @Test
    void thousandsOfDirectWritesMixedWithMessagesComplete() throws Exception {
        // Before the fix every direct write took one message of the socket's allowance that nothing
        // gave back: after 32 (the window) less the messages in flight, the socket waited forever.
        pair.configure(b -> b.engine(EngineConfig.defaults()));
        CompletableFuture<RdmaConnection> serverSide = new CompletableFuture<>();
        pair.serve(s -> s.handleConnection(c -> {
            serverSide.complete(c);
            return c.onDispose();
        }));
        RdmaConnection client = pair.client().connectNow(Duration.ofSeconds(30));
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
