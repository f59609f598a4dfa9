package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.memory.Chunk;
import io.reactorrdma.memory.RegisteredByteBufAllocator;
import io.reactorrdma.verbs.MemoryRegion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static io.reactorrdma.TestMessages.crc;
import static io.reactorrdma.TestMessages.message;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which memory a message is sent from and received into: a buffer of another
 * {@link RdmaResources} is copied, never gathered with keys of another context; each
 * peer's rendezvous destinations come from memory registered for that peer only.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MemoryIdentityTest {

    private RdmaResources serverResources;
    private RdmaResources clientResources;
    private RdmaResources otherResources;
    private DisposableRdmaServer server;
    /** Server side: the registered regions each connection's messages arrived in. */
    private final ConcurrentHashMap<Object, List<MemoryRegion>> arrivedIn = new ConcurrentHashMap<>();

    private void start(EngineConfig engine) {
        serverResources = RdmaResources.builder("server").provider("loopback").threads(1)
                .idle(IdleStrategy.BACK_OFF).engine(engine).build();
        clientResources = RdmaResources.builder("client").provider("loopback").threads(1)
                .idle(IdleStrategy.BACK_OFF).engine(engine).build();
        otherResources = RdmaResources.builder("other").provider("loopback").threads(1).idle(IdleStrategy.BACK_OFF).engine(engine).build();
        server = RdmaServer.create().port(0).runOn(serverResources)
                .handle((in, out) -> out.send(in.receive().doOnNext(m -> recordRegion(in, m))))
                .bindNow();
    }

    private void recordRegion(Object inbound, ByteBuf m) {
        Chunk c = RegisteredByteBufAllocator.regionOf(m);
        if (c != null) {
            arrivedIn.computeIfAbsent(inbound, k -> Collections.synchronizedList(new ArrayList<>())).add(c.region());
        }
    }

    private static EngineConfig engine() {
        return EngineConfig.defaults().withMaxMessageSize(8 << 20);
    }

    @AfterEach
    void stop() {
        server.disposeNow(Duration.ofSeconds(10));
        clientResources.dispose();
        otherResources.dispose();
        serverResources.dispose();
        assertThat(clientResources.allocator().liveBuffers()).as("client live buffers").isZero();
        assertThat(otherResources.allocator().liveBuffers()).as("other live buffers").isZero();
        assertThat(serverResources.allocator().liveBuffers()).as("server live buffers").isZero();
    }

    private RdmaConnection connect() {
        return RdmaClient.create().port(server.port()).runOn(clientResources).connectNow();
    }

    /** {@code size} random bytes from {@code seed} in a registered buffer of {@code owner}. */
    private static ByteBuf foreign(RdmaResources owner, int size, long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return owner.allocator().byteBufAllocator().directBuffer(size).writeBytes(bytes);
    }

    @Test
    void aBufferOfAnotherResourcesIsCopiedOnceAndArrivesIntact() {
        start(engine());
        RdmaConnection c = connect();
        // eager, rendezvous, and a composite of registered pieces one of which is foreign
        List<ByteBuf> messages = new ArrayList<>();
        messages.add(foreign(otherResources, 100, 1));
        messages.add(foreign(otherResources, 200_000, 2));
        messages.add(c.alloc().compositeDirectBuffer(2)
                .addComponent(true, message(c, 60, 3))
                .addComponent(true, foreign(otherResources, 3000, 4)));
        long[] sums = new long[messages.size()];
        int[] sizes = new int[messages.size()];
        for (int m = 0; m < messages.size(); m++) {
            sums[m] = crc(messages.get(m));
            sizes[m] = messages.get(m).readableBytes();
        }
        long copiesBefore = clientResources.domains()[0].metrics().copiesOnSend();
        Mono<List<ByteBuf>> echoes = c.inbound().receive().take(messages.size()).collectList();
        c.outbound().send(Flux.fromIterable(messages)).then().block(Duration.ofSeconds(60));
        List<ByteBuf> received = echoes.block(Duration.ofSeconds(60));
        try {
            assertThat(received).hasSize(messages.size());
            for (int m = 0; m < received.size(); m++) {
                assertThat(received.get(m).readableBytes()).as("message %d size", m).isEqualTo(sizes[m]);
                assertThat(crc(received.get(m))).as("message %d bytes", m).isEqualTo(sums[m]);
            }
        } finally {
            received.forEach(ByteBuf::release);
        }
        assertThat(clientResources.domains()[0].metrics().copiesOnSend() - copiesBefore)
                .as("copies on send: each message holding memory of another RdmaResources, once").isEqualTo(messages.size());
        c.dispose();
    }

    @Test
    void dataReadableInAnotherResourcesIsNeverPulledWithItsKey() {
        // pull on (the default), copies off: a frame whose data lies in this connection's remote-readable memory is pulled
        // where it lies; the same frame with its data readable in another RdmaResources (another context: its key names
        // other memory here, or none) is copied once and goes by WRITE rendezvous
        start(engine());
        RdmaConnection c = connect();
        List<ByteBuf> messages = new ArrayList<>();
        for (RdmaResources owner : List.of(clientResources, otherResources)) {
            byte[] data = new byte[300_000];
            new Random(owner == clientResources ? 5 : 6).nextBytes(data);
            messages.add(c.alloc().compositeDirectBuffer(2)
                    .addComponent(true, message(c, 40, 7))
                    .addComponent(true, owner.allocator().remoteReadableByteBufAllocator().directBuffer(data.length).writeBytes(data)));
        }
        long[] sums = new long[messages.size()];
        for (int m = 0; m < messages.size(); m++) {
            sums[m] = crc(messages.get(m));
        }
        long copiesBefore = clientResources.domains()[0].metrics().copiesOnSend();
        long pulledBefore = serverResources.domains()[0].metrics().messagesPulled();
        Mono<List<ByteBuf>> echoes = c.inbound().receive().take(messages.size()).collectList();
        c.outbound().send(Flux.fromIterable(messages)).then().block(Duration.ofSeconds(60));
        List<ByteBuf> received = echoes.block(Duration.ofSeconds(60));
        try {
            for (int m = 0; m < received.size(); m++) {
                assertThat(crc(received.get(m))).as("message %d bytes", m).isEqualTo(sums[m]);
            }
        } finally {
            received.forEach(ByteBuf::release);
        }
        assertThat(serverResources.domains()[0].metrics().messagesPulled() - pulledBefore).as("pulled by the server: the first only")
                .isEqualTo(1);
        assertThat(clientResources.domains()[0].metrics().copiesOnSend() - copiesBefore).as("copied: the second, once").isEqualTo(1);
        c.dispose();
    }

    @Test
    void twoPeersRendezvousDestinationsNeverShareARegion() {
        // two peers: connections of one thread domain to one address share a queue pair, so the second
        // peer is another RdmaResources. WRITE rendezvous: the server hands each peer a destination.
        start(engine().withPullRendezvous(false));
        RdmaConnection a = connect();
        RdmaConnection b = RdmaClient.create().port(server.port()).runOn(otherResources).connectNow();
        int n = 8;
        for (RdmaConnection c : List.of(a, b)) {
            Mono<Void> echoes = c.inbound().receive().take(n).doOnNext(ByteBuf::release).then();
            // above the eager size: each goes by rendezvous into a destination the server allocates for this peer
            Mono.when(echoes, c.outbound().send(Flux.range(0, n).map(i -> message(c, 20_000 + 1000 * i, i))).then())
                    .block(Duration.ofSeconds(60));
        }
        assertThat(arrivedIn).as("server connections that received rendezvous messages").hasSize(2);
        List<List<MemoryRegion>> perPeer = new ArrayList<>(arrivedIn.values());
        assertThat(perPeer.get(0)).hasSize(n);
        assertThat(perPeer.get(1)).hasSize(n);
        for (MemoryRegion r : perPeer.get(0)) {
            assertThat(perPeer.get(1)).as("regions of the other peer's destinations").doesNotContain(r);
        }
        a.dispose();
        b.dispose();
    }
}
