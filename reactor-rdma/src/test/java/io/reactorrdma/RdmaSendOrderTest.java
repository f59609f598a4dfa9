package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.config.EngineConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.reactorrdma.TestMessages.message;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code send} and a {@code sendNow} on different threads: the queue's order is not the order
 * in which they started, so the send must learn from the engine which messages were its own.
 * The interleaving is pinned with the send's hook just before it offers a message.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RdmaSendOrderTest {

    private static final int SERVER_MAX_MESSAGE = 64 * 1024;

    @RegisterExtension
    final RdmaPair pair = new RdmaPair();
    private CompletableFuture<RdmaConnection> serverSide;
    private final CountDownLatch offering = new CountDownLatch(1);
    private final CountDownLatch proceed = new CountDownLatch(1);
    /** The thread the paused offer ran on: the send's, never the I/O thread (which the pause would stop). */
    private volatile String offeringThread;

    @BeforeEach
    void start() {
        pair.configure(server -> server.engine(EngineConfig.defaults().withMaxMessageSize(SERVER_MAX_MESSAGE)), client -> client);
        serverSide = new CompletableFuture<>();
        pair.serve(s -> s.handleConnection(c -> {
            serverSide.complete(c);
            return c.onDispose();
        }));
    }

    @AfterEach
    void stop() {
        proceed.countDown(); // before the pair closes
    }

    private RdmaConnection connect() {
        return pair.connect();
    }

    /** The first message a send offers waits, once, until the test lets it go. */
    private void pauseFirstOffer(RdmaConnection c) {
        AtomicBoolean once = new AtomicBoolean();
        c.beforeSendOffer = () -> {
            if (once.compareAndSet(false, true)) {
                offeringThread = Thread.currentThread().getName();
                offering.countDown();
                try {
                    proceed.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    /** A one-message send on another thread; records the messages still queued when its then() completes. */
    private static CompletableFuture<Void> sendOne(RdmaConnection c, AtomicInteger queuedAtCompletion) {
        return Mono.defer(() -> c.outbound().send(Mono.fromCallable(() -> message(c, 64, 1000))).then())
                .doOnSuccess(v -> queuedAtCompletion.set(c.queuedMessages()))
                .subscribeOn(Schedulers.boundedElastic())
                .toFuture();
    }

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
    void aSendNowOvertakingASendDoesNotCompleteItEarly() throws Exception {
        RdmaConnection c = connect();
        RdmaConnection s = serverSide.get(30, TimeUnit.SECONDS);
        int window = s.receiveWindow();
        // The server reads nothing: after window - 1 messages one more may go, then the rest waits queued.
        for (int i = 0; i < window - 1; i++) {
            assertThat(c.sendNow(message(c, 64, i))).isTrue();
        }
        // Taken by the engine before the send starts: with them still queued the send could find no room, and its
        // message would be requested (and its offer paused) on the I/O thread when room came
        Eventually.until(() -> c.queuedMessages() == 0);
        pauseFirstOffer(c);
        AtomicInteger queuedAtCompletion = new AtomicInteger(-1);
        CompletableFuture<Void> sent = sendOne(c, queuedAtCompletion);
        assertThat(offering.await(30, TimeUnit.SECONDS)).as("the send reached its offer").isTrue();
        assertThat(offeringThread).as("the thread of the paused offer").doesNotContain("-io-");
        assertThat(c.sendNow(message(c, 64, 999))).isTrue(); // overtakes the send's message and takes the last allowance
        Eventually.until(() -> s.receiveHeadroom() == 0); // the engine took it: the server holds a full window
        proceed.countDown();
        Eventually.until(() -> c.queuedMessages() == 1 || sent.isDone()); // the send's message waits for allowance
        AtomicInteger read = drainServer();
        sent.get(30, TimeUnit.SECONDS);
        assertThat(queuedAtCompletion.get()).as("messages still queued when the send's then() completed").isZero();
        Eventually.until(() -> read.get() == window + 1);
        c.dispose();
    }

    @Test
    void aSendNowRefusedWhileASendOffersIsNotBlamedOnTheSend() throws Exception {
        RdmaConnection c = connect();
        AtomicInteger read = drainServer();
        pauseFirstOffer(c);
        AtomicInteger queuedAtCompletion = new AtomicInteger(-1);
        CompletableFuture<Void> sent = sendOne(c, queuedAtCompletion);
        assertThat(offering.await(30, TimeUnit.SECONDS)).as("the send reached its offer").isTrue();
        ByteBuf tooLarge = c.alloc().directBuffer(SERVER_MAX_MESSAGE + 1);
        tooLarge.writerIndex(SERVER_MAX_MESSAGE + 1);
        assertThat(c.sendNow(tooLarge)).isTrue();
        Eventually.until(() -> tooLarge.refCnt() == 0); // refused by the engine and released
        proceed.countDown();
        sent.get(30, TimeUnit.SECONDS); // the send's own message was fine
        Eventually.until(() -> read.get() == 1);
        c.dispose();
    }

    /**
     * A long send whose every message has a sendNow's between it and the next: the send's record of its own
     * ordinals stays a few runs (those not yet sent), not one per interleave for the whole send.
     */
    @Test
    void aLongSendInterleavedWithSendNowKeepsItsOrdinalRecordsBounded() throws Exception {
        RdmaConnection c = connect();
        AtomicInteger read = drainServer();
        int messages = 3_000;
        AtomicInteger mostRuns = new AtomicInteger();
        CompletableFuture<Void> sent = c.outbound().send(reactor.core.publisher.Flux.range(0, messages).map(i -> {
            mostRuns.accumulateAndGet(c.activeSendRuns(), Math::max);
            assertThat(c.sendNow(message(c, 64, 10_000 + i))).isTrue();
            return message(c, 64, i);
        })).then().toFuture();
        sent.get(60, TimeUnit.SECONDS);
        Eventually.until(() -> read.get() == 2 * messages);
        // before: one run per message of the send, 3,000 at the end; the queue holds at most a window of them
        assertThat(mostRuns.get()).as("runs of ordinals the send kept at most").isLessThanOrEqualTo(2 * c.receiveWindow() + 2);
        c.dispose();
    }
}
