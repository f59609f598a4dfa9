package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Sinks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link RdmaConnection#receiveHeadroom()}: the receive window less what arrived and was not granted back. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RdmaReceiveHeadroomTest {

    private RdmaResources serverResources;
    private RdmaResources clientResources;
    private DisposableRdmaServer server;

    @AfterEach
    void stop() {
        if (server != null) server.disposeNow(Duration.ofSeconds(10));
        if (clientResources != null) clientResources.dispose();
        if (serverResources != null) serverResources.dispose();
        assertThat(clientResources.allocator().liveBuffers()).as("client live buffers").isZero();
        assertThat(serverResources.allocator().liveBuffers()).as("server live buffers").isZero();
    }

    @Test
    void headroomFallsAsUnreadMessagesArriveAndComesBackAsTheyAreGranted() {
        int window = EngineConfig.DEFAULT_SOCKET_MESSAGE_WINDOW;
        AtomicReference<RdmaConnection> serverSide = new AtomicReference<>();
        AtomicReference<Subscription> reader = new AtomicReference<>();
        AtomicInteger read = new AtomicInteger();
        Sinks.Empty<Void> done = Sinks.empty();
        serverResources = RdmaResources.builder("server").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        clientResources = RdmaResources.builder("client").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).build();
        server = RdmaServer.create().port(0).runOn(serverResources).handleConnection(c -> {
            serverSide.set(c);
            c.receive().subscribe(new BaseSubscriber<ByteBuf>() {
                @Override
                protected void hookOnSubscribe(Subscription s) {
                    reader.set(s); // reads nothing until the test says so
                }

                @Override
                protected void hookOnNext(ByteBuf b) {
                    read.incrementAndGet();
                    b.release();
                }

                @Override
                protected void hookOnComplete() {
                    done.tryEmitEmpty();
                }
            });
            return done.asMono();
        }).bindNow();
        RdmaConnection client = RdmaClient.create().port(server.port()).runOn(clientResources).connectNow();
        Eventually.until(() -> serverSide.get() != null);
        RdmaConnection c = serverSide.get();
        assertThat(c.receiveWindow()).isEqualTo(window);
        assertThat(c.receiveHeadroom()).as("nothing arrived yet").isEqualTo(window);

        // one message more than the window: the window's worth arrives unread, the last waits at the client
        for (int i = 0; i <= window; i++) {
            ByteBuf b = client.alloc().directBuffer(64);
            b.writerIndex(64);
            assertThat(client.sendNow(b)).isTrue();
        }
        Eventually.until(() -> c.receiveHeadroom() == 0);
        assertThat(client.queuedMessages()).as("the last one waits at the client for allowance").isEqualTo(1);
        assertThat(c.receiveHeadroom()).as("the peer has no allowance left while nothing is read").isZero();

        reader.get().request(Long.MAX_VALUE);
        Eventually.until(() -> read.get() == window + 1);
        // window + 1 arrived and were read. A grant goes out once at least half the window was consumed
        // and takes everything consumed by the time the I/O thread runs it, so fewer than half stay
        // ungranted; how many depends on that timing (a busy CI host left more than the one the old
        // halves-exactly batching left, and the old "== window - 1" timed out)
        int half = window / 2;
        Eventually.until(() -> c.receiveHeadroom() > window - half);
        assertThat(c.receiveHeadroom()).as("fewer than half the window consumed and not granted").isBetween(window - half + 1, window);
        client.dispose();
    }
}
