package io.reactorrdma.engine;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a received message is delivered in: a small one in a buffer of its own size, copied out of
 * its receive buffer (which is posted again as it is), a larger one in the receive buffer itself.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EngineReceiveBufferTest {

    @Test
    void aSmallMessageComesInABufferOfItsSizeALargerOneInItsReceiveBuffer() throws Exception {
        EngineTest.Collector held = new EngineTest.Collector();
        int receiveBuffer = WireHeader.SIZE + EngineConfig.DEFAULT_EAGER_SIZE;
        int small = Engine.COPY_OUT_LIMIT;
        int larger = Engine.COPY_OUT_LIMIT + 1;
        int smallCount = 40; // more than half the receive queue: the copied-out slots are posted again
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults()), EngineConfig.defaults(),
                IdleStrategy.BLOCK, s -> s.inbound(new EngineSocket.Inbound() {
                    @Override
                    public void onMessage(ByteBuf message) {
                        s.consumed(1); // granted at once: the test holds the messages, not the socket's window
                        held.onMessage(message);
                    }

                    @Override
                    public void onClose(Throwable error) {
                        held.onClose(error);
                    }
                }))) {
            EngineSocket socket = h.client.openSocket(h.address(), Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
            List<ByteBuf> received = new ArrayList<>();
            try {
                for (int i = 0; i < smallCount; i++) {
                    assertThat(socket.offer(filled(h, small, i))).isTrue();
                }
                assertThat(socket.offer(filled(h, larger, smallCount))).isTrue();
                for (int i = 0; i <= smallCount; i++) {
                    received.add(held.take(h));
                }
                for (int i = 0; i < smallCount; i++) {
                    ByteBuf m = received.get(i);
                    assertThat(m.readableBytes()).isEqualTo(small);
                    assertThat(m.getByte(m.readerIndex())).isEqualTo((byte) i);
                    assertThat(m.getByte(m.writerIndex() - 1)).isEqualTo((byte) i);
                    assertThat(m.capacity()).as("a %d-byte message's buffer (the receive buffers hold %d)", small, receiveBuffer)
                            .isLessThan(receiveBuffer / 4);
                }
                ByteBuf m = received.get(smallCount);
                assertThat(m.readableBytes()).isEqualTo(larger);
                assertThat(m.getByte(m.writerIndex() - 1)).isEqualTo((byte) smallCount);
                assertThat(m.capacity()).as("a message over the copy limit comes in its receive buffer")
                        .isGreaterThanOrEqualTo(receiveBuffer);
            } finally {
                received.forEach(ByteBuf::release);
            }
            socket.close();
        }
    }

    private static ByteBuf filled(EngineHarness h, int size, int value) {
        ByteBuf b = h.clientMemory.byteBufAllocator().directBuffer(size);
        for (int i = 0; i < size; i++) {
            b.writeByte(value);
        }
        return b;
    }
}
