package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.reactorrdma.TestMessages.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code send(...).then()} completes when the engine took that send's own messages, whatever else
 * the connection sends ({@code sendNow}, an earlier cancelled send); a send on a closed connection
 * releases what it was given.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RdmaOutboundSendTest {

    @RegisterExtension
    final RdmaPair pair = new RdmaPair();
    /** The server side of the next connection; the server reads nothing until the test subscribes. */
    private CompletableFuture<RdmaConnection> serverSide;

    @BeforeEach
    void start() {
        serverSide = new CompletableFuture<>();
        pair.serve(s -> s.handleConnection(c -> {
            serverSide.complete(c);
            return c.onDispose();
        }));
    }

    private RdmaConnection connect() {
        return pair.connect();
    }

    private static Flux<ByteBuf> messages(RdmaConnection c, int n) {
        return Flux.range(0, n).map(i -> message(c, 64, i));
    }

    /** Starts reading (and releasing) on the server side; returns how many it read so far. */
    private AtomicInteger drainServer() throws Exception {
        RdmaConnection s = serverSide.get(30, TimeUnit.SECONDS);
        AtomicInteger read = new AtomicInteger();
        s.receive().subscribe(m -> {
            m.release();
            read.incrementAndGet();
        }, error -> { });
        return read;
    }

    @Test
    void sendNowMessagesQueuedAheadDoNotCompleteASendEarly() throws Exception {
        RdmaConnection c = connect();
        // The server reads nothing: the socket window (32) is taken, the rest waits in the queue.
        for (int i = 0; i < 40; i++) {
            assertThat(c.sendNow(message(c, 64, i))).isTrue();
        }
        Eventually.until(() -> c.queuedMessages() == 8);
        AtomicInteger queuedAtCompletion = new AtomicInteger(-1);
        CompletableFuture<Void> sent = c.outbound().send(messages(c, 3)).then()
                .doOnSuccess(v -> queuedAtCompletion.set(c.queuedMessages()))
                .toFuture();
        Eventually.until(() -> c.queuedMessages() == 11);
        AtomicInteger read = drainServer();
        sent.get(30, TimeUnit.SECONDS);
        assertThat(queuedAtCompletion.get()).as("messages still queued when then() completed").isZero();
        Eventually.until(() -> read.get() == 43);
        c.dispose();
    }

    @Test
    void aCancelledSendsQueuedMessagesDoNotConfuseTheNextSend() throws Exception {
        RdmaConnection c = connect();
        Disposable first = c.outbound().send(messages(c, 40)).then().subscribe();
        Eventually.until(() -> c.queuedMessages() == 8);
        first.dispose(); // cancelled with 8 messages still queued
        AtomicInteger queuedAtCompletion = new AtomicInteger(-1);
        CompletableFuture<Void> second = c.outbound().send(messages(c, 2)).then()
                .doOnSuccess(v -> queuedAtCompletion.set(c.queuedMessages()))
                .toFuture();
        Eventually.until(() -> c.queuedMessages() == 10);
        AtomicInteger read = drainServer();
        second.get(30, TimeUnit.SECONDS);
        assertThat(queuedAtCompletion.get()).as("messages still queued when then() completed").isZero();
        Eventually.until(() -> read.get() == 42);
        c.dispose();
    }

    @Test
    void cancellingASendDropsNoErrorIntoReactorsHooks() throws Exception {
        java.util.Queue<Throwable> dropped = new java.util.concurrent.ConcurrentLinkedQueue<>();
        reactor.core.publisher.Hooks.onErrorDropped(dropped::add);
        try {
            RdmaConnection c = connect();
            for (int i = 1; i <= 5; i++) {
                int queuedBefore = c.queuedMessages();
                Disposable send = c.outbound().send(messages(c, 40)).then().subscribe();
                Eventually.until(() -> c.queuedMessages() > queuedBefore || queuedBefore >= 8);
                send.dispose(); // the subscriber has gone: the send's own CancellationException must go nowhere
            }
            AtomicInteger read = drainServer();
            Eventually.until(() -> c.queuedMessages() == 0 && read.get() > 0);
            c.dispose();
        } finally {
            reactor.core.publisher.Hooks.resetOnErrorDropped();
        }
        assertThat(dropped).as("errors Reactor dropped (it logs each at ERROR)").isEmpty();
    }

    @Test
    void sendsAfterSendNowAndDirectTrafficCompleteEachTime() throws Exception {
        RdmaConnection c = connect();
        drainServer();
        for (int round = 0; round < 20; round++) {
            for (int i = 0; i < 5; i++) {
                c.sendNow(message(c, 64, i));
            }
            c.outbound().send(messages(c, 7)).then().block(Duration.ofSeconds(30));
        }
        c.dispose();
    }

    @Test
    void aSendOnAClosedConnectionReleasesItsBuffers() throws Exception {
        RdmaConnection c = connect();
        c.dispose();
        c.onDispose().block(Duration.ofSeconds(30));
        ByteBuf one = message(c, 64, 1);
        assertThatThrownBy(() -> c.outbound().send(Mono.just(one)).then().block(Duration.ofSeconds(30)))
                .hasCauseInstanceOf(ClosedChannelException.class);
        assertThat(one.refCnt()).as("the buffer given to send on a closed connection").isZero();
        List<ByteBuf> more = List.of(message(c, 64, 2), message(c, 64, 3));
        assertThatThrownBy(() -> c.outbound().send(Flux.fromIterable(more)).then().block(Duration.ofSeconds(30)))
                .hasCauseInstanceOf(ClosedChannelException.class);
        assertThat(more).allSatisfy(b -> assertThat(b.refCnt()).isZero());
    }
}
