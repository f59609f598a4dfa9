package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.engine.MessageTooLargeException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.reactorrdma.TestMessages.crc;
import static io.reactorrdma.TestMessages.message;
import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RdmaServerClientTest {

    @RegisterExtension
    final RdmaPair pair = new RdmaPair();

    @BeforeEach
    void start() {
        EngineConfig engine = EngineConfig.defaults().withMaxMessageSize(8 << 20);
        pair.configure(b -> b.engine(engine)).serve(s -> s.handle((in, out) -> out.send(in.receive())));
    }

    private RdmaConnection connect() {
        return pair.connect();
    }



    @Test
    void echoKeepsOrderAndBytesForEagerAndRendezvousMessages() {
        RdmaConnection c = connect();
        int[] sizes = {0, 1, 100, 8192, 8193, 70_000, 1 << 20, 3 << 20, 5, 64};
        long[] sums = new long[sizes.length];
        Flux<ByteBuf> outgoing = Flux.range(0, sizes.length).map(i -> {
            ByteBuf m = message(c, sizes[i], i);
            sums[i] = crc(m);
            return m;
        });
        c.outbound().send(outgoing).then().subscribe();
        StepVerifier.create(c.inbound().receive().take(sizes.length).index().map(t -> {
                    ByteBuf b = t.getT2();
                    try {
                        int i = t.getT1().intValue();
                        assertThat(b.readableBytes()).isEqualTo(sizes[i]);
                        assertThat(crc(b)).isEqualTo(sums[i]);
                        return i;
                    } finally {
                        b.release();
                    }
                }))
                .expectNextCount(sizes.length)
                .verifyComplete();
        c.dispose();
    }

    @Test
    void manyConnectionsShareOneEngineAndStayIndependent() {
        List<RdmaConnection> connections = Flux.range(0, 8).flatMap(i -> pair.client().connect())
                .collectList().block(Duration.ofSeconds(30));
        assertThat(connections).hasSize(8);
        assertThat(pair.clientResources().domains()[0].metrics().engines()).as("one queue pair for 8 connections").isEqualTo(1);
        Flux.fromIterable(connections).flatMap(c -> {
            Mono<Void> send = c.outbound().send(Flux.range(0, 50).map(i -> message(c, 1 + i * 37, i))).then();
            Mono<Long> recv = c.inbound().receive().take(50).map(b -> {
                b.release();
                return 1;
            }).count();
            return send.then(recv);
        }).collectList().as(StepVerifier::create)
                .assertNext(counts -> assertThat(counts).containsOnly(50L))
                .verifyComplete();
        connections.forEach(RdmaConnection::dispose);
    }

    @Test
    void aTooLargeMessageFailsItsSendAndTheConnectionGoesOn() {
        RdmaConnection c = connect();
        ByteBuf huge = c.alloc().directBuffer(9 << 20);
        huge.writerIndex(9 << 20);
        StepVerifier.create(c.outbound().send(Mono.just(huge)).then())
                .expectError(MessageTooLargeException.class)
                .verify(Duration.ofSeconds(30));
        c.outbound().send(Mono.just(message(c, 10, 1))).then().block(Duration.ofSeconds(30));
        StepVerifier.create(c.inbound().receive().take(1).map(b -> {
                    int n = b.readableBytes();
                    b.release();
                    return n;
                }))
                .expectNext(10)
                .verifyComplete();
        c.dispose();
    }

    @Test
    void closingTheClientEndsTheServerSideAndViceVersa() {
        RdmaConnection c = connect();
        c.outbound().send(Mono.just(message(c, 10, 1))).then().block(Duration.ofSeconds(30));
        c.inbound().receive().take(1).doOnNext(ByteBuf::release).blockLast(Duration.ofSeconds(30));
        c.dispose();
        StepVerifier.create(c.onDispose()).verifyComplete();
    }

    @Test
    void sendsRacingWithTheCloseOfTheConnectionLeakNothing() throws Exception {
        // offers that pass the closed check just before the socket ends must still be released:
        // the after-each check (zero live buffers once the resources are disposed) is the assertion
        for (int round = 0; round < 10; round++) {
            RdmaConnection c = connect();
            c.inbound().receive().subscribe(ByteBuf::release, e -> { }); // the echoes flow, the queue drains
            int senders = 3;
            java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(senders);
            Thread[] threads = new Thread[senders];
            for (int t = 0; t < senders; t++) {
                threads[t] = new Thread(() -> {
                    started.countDown();
                    for (int i = 0; i < 20_000; i++) {
                        if (!c.sendNow(c.alloc().directBuffer(16).writeLong(i))) {
                            return;
                        }
                    }
                });
                threads[t].start();
            }
            started.await();
            Thread.sleep(5);
            c.dispose();
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                assertThat(t.isAlive()).as("a sender still running a minute after the close").isFalse();
            }
            StepVerifier.create(c.onDispose()).expectComplete().verify(Duration.ofSeconds(30));
        }
    }

    @Test
    void compositeMessagesOfRegisteredPiecesGoWithoutACopyAndOthersWithOne() {
        RdmaConnection c = connect();
        // pieces as RSocket builds frames: a small header, then metadata and data; eager, rendezvous, and
        // rendezvous fragments (64 KiB) that span pieces
        int[][] shapes = {{9, 100, 5000}, {9, 0, 200_000}, {30_000, 70_000, 100}, {1, 1, 1}};
        long[] sums = new long[shapes.length + 1];
        int[] sizes = new int[shapes.length + 1];
        List<ByteBuf> messages = new java.util.ArrayList<>();
        for (int m = 0; m < shapes.length; m++) {
            io.netty.buffer.CompositeByteBuf composite = c.alloc().compositeDirectBuffer(shapes[m].length);
            for (int piece = 0; piece < shapes[m].length; piece++) {
                composite.addComponent(true, message(c, shapes[m][piece], 31L * m + piece));
            }
            sums[m] = crc(composite);
            sizes[m] = composite.readableBytes();
            messages.add(composite);
        }
        // a piece outside registered memory: the engine copies that message once
        io.netty.buffer.CompositeByteBuf mixed = c.alloc().compositeDirectBuffer(2)
                .addComponent(true, message(c, 50, 7))
                .addComponent(true, io.netty.buffer.Unpooled.wrappedBuffer(new byte[3000]));
        sums[shapes.length] = crc(mixed);
        sizes[shapes.length] = mixed.readableBytes();
        messages.add(mixed);
        long copiesBefore = pair.clientResources().domains()[0].metrics().copiesOnSend();
        Mono<List<ByteBuf>> echoes = c.inbound().receive().take(messages.size()).collectList();
        c.outbound().send(Flux.fromIterable(messages)).then().block(Duration.ofSeconds(60));
        List<ByteBuf> received = echoes.block(Duration.ofSeconds(60));
        try {
            for (int m = 0; m < received.size(); m++) {
                assertThat(received.get(m).readableBytes()).as("message %d", m).isEqualTo(sizes[m]);
                assertThat(crc(received.get(m))).as("message %d", m).isEqualTo(sums[m]);
            }
        } finally {
            received.forEach(ByteBuf::release);
        }
        assertThat(pair.clientResources().domains()[0].metrics().copiesOnSend() - copiesBefore)
                .as("copies on send: only the message with a piece outside registered memory").isEqualTo(1);
        c.dispose();
    }

    private static double[] postCounters(io.micrometer.core.instrument.MeterRegistry registry) {
        return new double[]{registry.get("rdma.doorbells").functionCounter().count(),
                registry.get("rdma.posts.signaled").functionCounter().count(), registry.get("rdma.posts").functionCounter().count()};
    }

    @Test
    void metersDescribeTheTraffic() {
        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        RdmaResources metered = RdmaResources.builder("metered").provider("loopback").threads(1).metrics(registry).build();
        try {
            RdmaConnection c = RdmaClient.create().port(pair.server().port()).runOn(metered).connectNow();
            // read while sending: an echo peer stops echoing (and so stops reading) when nobody reads its answers
            Mono<Void> receive = c.inbound().receive().take(100).doOnNext(ByteBuf::release).then();
            Mono.when(receive, c.outbound().send(Flux.range(0, 100).map(i -> message(c, 200, i))).then()).block(Duration.ofSeconds(30));
            // the I/O thread may still post (a grant for the echoes read) while the meters are read:
            // read the three until two readings agree, so they describe one moment
            double[] now = postCounters(registry);
            for (double[] before = null; before == null || !java.util.Arrays.equals(before, now); ) {
                before = now;
                now = postCounters(registry);
            }
            double doorbells = now[0];
            double signaled = now[1];
            double posts = now[2];
            assertThat(doorbells).isPositive().isLessThanOrEqualTo(posts);
            // every doorbell's batch ends with a signaled request, so doorbells <= signaled <= posts
            assertThat(signaled).isBetween(doorbells, posts);
            assertThat(registry.get("rdma.bytes.received").functionCounter().count()).isGreaterThanOrEqualTo(100 * 216);
            assertThat(registry.get("rdma.rnr").functionCounter().count()).isZero();
            assertThat(registry.get("rdma.engines").gauge().value()).isEqualTo(1);
            assertThat(registry.get("rdma.sockets").gauge().value()).isEqualTo(1);
            assertThat(registry.get("rdma.memory.registered.bytes").tag("pool", "local").gauge().value()).isPositive();
            c.dispose();
        } finally {
            metered.dispose();
        }
        assertThat(metered.allocator().liveBuffers()).isZero();
    }

    @Test
    void aDirectWriteIntoAKnownRemoteBufferSkipsTheRendezvous() throws Exception {
        java.util.concurrent.CompletableFuture<RdmaConnection> serverSide = new java.util.concurrent.CompletableFuture<>();
        DisposableRdmaServer tensors = RdmaServer.create().port(0).runOn(pair.serverResources())
                .handleConnection(c -> {
                    serverSide.complete(c);
                    return c.onDispose();
                })
                .bindNow();
        try {
            RdmaConnection client = RdmaClient.create().port(tensors.port()).runOn(pair.clientResources()).connectNow();
            RdmaConnection server = serverSide.get(30, TimeUnit.SECONDS);
            int size = 1 << 20;
            ByteBuf destination = server.allocateRemoteWritable(size);
            long address = io.reactorrdma.memory.RegisteredByteBufAllocator.addressOf(destination);
            int rkey = io.reactorrdma.memory.RegisteredByteBufAllocator.regionOf(destination).rkey();
            var notices = server.remoteWrites().take(1).collectList().toFuture();
            long rendezvousBefore = pair.clientResources().domains()[0].metrics().rendezvousRoundTrips()
                    + pair.serverResources().domains()[0].metrics().rendezvousRoundTrips();
            ByteBuf payload = message(client, size, 99);
            long sum = crc(payload);
            assertThat(client.writeNow(payload, address, rkey)).isTrue();
            assertThat(notices.get(30, TimeUnit.SECONDS)).hasSize(1);
            destination.writerIndex(size);
            assertThat(crc(destination)).as("the bytes landed in the announced buffer").isEqualTo(sum);
            assertThat(pair.clientResources().domains()[0].metrics().rendezvousRoundTrips()
                    + pair.serverResources().domains()[0].metrics().rendezvousRoundTrips()).as("no round trip").isEqualTo(rendezvousBefore);
            destination.release();
            client.dispose();
        } finally {
            tensors.disposeNow(Duration.ofSeconds(10));
        }
    }
}
