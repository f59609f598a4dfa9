package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.engine.EngineMetrics;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** Fairness between sockets, a slow consumer stopping its sender, and a vanished peer, end to end over loopback. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RdmaFlowControlTest {

    @RegisterExtension
    final RdmaPair pair = new RdmaPair();

    private void start(EngineConfig engine,
            java.util.function.BiFunction<RdmaInbound, RdmaOutbound, org.reactivestreams.Publisher<Void>> handler) {
        SoftConfig soft = SoftConfig.defaults().withPeerTimeout(Duration.ofMillis(400));
        pair.configure(b -> b.softConfig(soft).engine(engine)).serve(s -> s.handle(handler::apply));
    }

    private RdmaConnection connect() {
        return pair.connect();
    }

    private static ByteBuf filled(RdmaConnection c, int size, int value) {
        ByteBuf b = c.alloc().directBuffer(size);
        b.writerIndex(size);
        b.setByte(0, value);
        return b;
    }

    @Test
    void aHugeMessageOnOneSocketDoesNotHoldBackASmallOneOnAnother() {
        List<Integer> arrivals = new CopyOnWriteArrayList<>();
        // A one-fragment window and the smallest fragments make the big message take thousands of round
        // trips (4,096 x 4 KiB): on an idle machine 16 KiB fragments moved 15 MiB between two 5-ms polls.
        start(EngineConfig.defaults().withMaxMessageSize(32 << 20).withSendWindowBytes(4 * 1024).withFragmentSize(4 * 1024),
                (in, out) -> in.receive().doOnNext(b -> {
                    arrivals.add(b.readableBytes());
                    b.release();
                }).then());
        RdmaConnection big = connect();
        RdmaConnection small = connect();
        assertThat(pair.clientResources().domains()[0].metrics().engines()).isEqualTo(1);
        EngineMetrics m = pair.clientResources().domains()[0].metrics();
        int size = 16 << 20;
        boolean checked = false;
        for (int attempt = 0; attempt < 10 && !checked; attempt++) {
            arrivals.clear();
            long base = m.bytesSent();
            // from the local pool, not the connection's readable memory: the WRITE rendezvous, whose fragments this side posts
            ByteBuf huge = pair.clientResources().allocator().byteBufAllocator().directBuffer(size).writerIndex(size).setByte(0, 1);
            big.outbound().send(Mono.just(huge)).then().subscribe();
            Eventually.until(Duration.ofSeconds(30), () -> m.bytesSent() - base > 1 << 20); // fragments are flowing
            small.outbound().send(Mono.just(filled(small, 100, 2))).then().block(Duration.ofSeconds(30));
            long sentWhenSmallWasQueued = m.bytesSent() - base;
            Eventually.until(Duration.ofSeconds(60), () -> arrivals.size() == 2);
            if (sentWhenSmallWasQueued < size - (1 << 20)) { // the big one was well under way: the check means something
                assertThat(arrivals).as("the small message overtakes the 16 MiB one sharing its queue pair").containsExactly(100, size);
                checked = true;
            }
        }
        assertThat(checked).as("the small message was queued while the big one was in progress, in one of 10 attempts").isTrue();
        assertThat(m.rnrEvents()).isZero();
        big.dispose();
        small.dispose();
    }

    @Test
    void aSlowConsumerStopsItsSenderAndEverythingArrivesOnceItReads() throws Exception {
        int window = EngineConfig.DEFAULT_SOCKET_MESSAGE_WINDOW;
        AtomicReference<Subscription> consumer = new AtomicReference<>();
        List<Integer> received = new CopyOnWriteArrayList<>();
        Sinks.Empty<Void> done = Sinks.empty();
        start(EngineConfig.defaults(), (in, out) -> {
            in.receive().subscribe(new BaseSubscriber<ByteBuf>() {
                @Override
                protected void hookOnSubscribe(Subscription s) {
                    consumer.set(s); // requests nothing until the test says so
                }

                @Override
                protected void hookOnNext(ByteBuf b) {
                    received.add((int) b.getByte(b.readerIndex()));
                    b.release();
                }

                @Override
                protected void hookOnComplete() {
                    done.tryEmitEmpty();
                }
            });
            return done.asMono();
        });
        RdmaConnection c = connect();
        int total = 500;
        Mono<Void> sending = c.outbound().send(Flux.range(0, total).map(i -> filled(c, 64, i % 100))).then();
        var sent = sending.toFuture();
        Thread.sleep(500);
        assertThat(sent).as("the sender is stopped by the consumer's missing demand").isNotDone();
        EngineMetrics serverMetrics = pair.serverResources().domains()[0].metrics();
        EngineMetrics clientMetrics = pair.clientResources().domains()[0].metrics();
        long arrived = serverMetrics.bytesReceived();
        assertThat(arrived).as("the receiver holds at most one window of unread messages (plus control traffic)")
                .isLessThanOrEqualTo((long) (window + 8) * (64 + 16) + 4096);
        assertThat(clientMetrics.socketStalls()).as("the sender waited for the peer's allowance").isPositive();
        Eventually.until(() -> consumer.get() != null);
        consumer.get().request(Long.MAX_VALUE);
        sent.get(60, TimeUnit.SECONDS);
        Eventually.until(Duration.ofSeconds(60), () -> received.size() == total);
        for (int i = 0; i < total; i++) {
            assertThat(received.get(i)).isEqualTo(i % 100);
        }
        assertThat(clientMetrics.rnrEvents()).isZero();
        assertThat(serverMetrics.rnrEvents()).isZero();
        c.dispose();
    }

    @Test
    void aVanishedPeerEndsItsConnectionsWithAnErrorNamingIt() {
        AtomicReference<Throwable> serverSide = new AtomicReference<>();
        start(EngineConfig.defaults(), (in, out) -> in.receive().doOnNext(ByteBuf::release).doOnError(serverSide::set).then());
        RdmaConnection c = connect();
        c.outbound().send(Mono.just(filled(c, 10, 1))).then().block(Duration.ofSeconds(30));
        Eventually.until(() -> pair.serverResources().domains()[0].metrics().socketsOpen() == 1);
        ((SoftContext) pair.clientResources().context()).vanish();
        Eventually.until(Duration.ofSeconds(30), () -> serverSide.get() != null);
        assertThat(serverSide.get()).hasMessageContaining("peer");
    }

    @Test
    void incastNeverPutsMoreThanTheWindowInFlightNorSpendsCreditsItHasNot() {
        // one fragment (EngineConfig's default 64 KiB): a second fragment ready in the same turn must wait, so the
        // window binds whatever the timing of message production (with 256 KiB it bound only when several rendezvous
        // answers happened to arrive together)
        long window = 64 * 1024;
        // WRITE rendezvous: the senders' WRITEs are what their window bounds (pulled messages count against the puller's)
        start(EngineConfig.defaults().withSendWindowBytes(window).withPullRendezvous(false),
                (in, out) -> in.receive().doOnNext(ByteBuf::release).then());
        List<RdmaConnection> connections = Flux.range(0, 6).flatMap(i -> pair.client().connect())
                .collectList().block(Duration.ofSeconds(30));
        Flux.fromIterable(connections)
                .flatMap(c -> c.outbound().send(Flux.range(0, 20).map(i -> filled(c, i % 2 == 0 ? 1 << 20 : 3000, i))).then())
                .then().block(Duration.ofSeconds(60));
        EngineMetrics m = pair.clientResources().domains()[0].metrics();
        Eventually.until(() -> pair.serverResources().domains()[0].metrics().bytesReceived() >= 6L * 10 * (1 << 20));
        assertThat(m.windowStalls()).as("the window held fragments back %s", m).isPositive();
        assertThat(m.peakWindowBytes()).as("bytes in flight never above the window").isLessThanOrEqualTo(window);
        assertThat(m.minCredits()).as("credits never negative").isGreaterThanOrEqualTo(0);
        assertThat(m.rnrEvents()).isZero();
        connections.forEach(RdmaConnection::dispose);
    }
}
