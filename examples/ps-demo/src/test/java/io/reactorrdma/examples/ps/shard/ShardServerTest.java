package io.reactorrdma.examples.ps.shard;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.reactorrdma.examples.ps.wire.FetchReply;
import io.reactorrdma.examples.ps.wire.FetchRequest;
import io.reactorrdma.examples.ps.wire.PushAck;
import io.reactorrdma.examples.ps.wire.PushBatch;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.ClientTransport;
import io.rsocket.util.ByteBufPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** One shard over RDMA (loopback) and TCP: fetch, push, push stream, errors, and whether a fetch reply is copied on send. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShardServerTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private final ShardFixture fixture = new ShardFixture(ShardConfig.of(0, 2).withRows(4096).withDimension(16).withSeed(3));
    private RSocket rdma;
    private RSocket tcp;

    @AfterEach
    void close() {
        for (RSocket r : new RSocket[]{rdma, tcp}) {
            if (r != null) {
                r.dispose();
                r.onClose().onErrorResume(e -> reactor.core.publisher.Mono.empty()).block(WAIT);
            }
        }
        fixture.close();
    }

    private RSocket connect(ClientTransport t) {
        return RSocketConnector.create().payloadDecoder(PayloadDecoder.ZERO_COPY).connect(t).block(WAIT);
    }

    private ByteBufAllocator clientAlloc() {
        return fixture.clientResources.allocator().byteBufAllocator();
    }

    @Test
    void fetchAnswersTheSameRowsOverRdmaAndTcp() {
        rdma = connect(fixture.rdma(0));
        tcp = connect(fixture.tcp(0));
        for (RSocket r : List.of(rdma, tcp)) {
            Payload reply = r.requestResponse(ByteBufPayload.create(FetchRequest.encode(clientAlloc(), 4, 0, 2000))).block(WAIT);
            try {
                ByteBuf data = reply.sliceData();
                assertThat(FetchReply.count(data)).isEqualTo(3);
                assertThat(FetchReply.dimension(data)).isEqualTo(16);
                assertThat(FetchReply.value(data, 16, 0, 5)).isEqualTo(EmbeddingShard.initialValue(3, 4, 5));
                assertThat(FetchReply.value(data, 16, 2, 15)).isEqualTo(EmbeddingShard.initialValue(3, 2000, 15));
            } finally {
                reply.release();
            }
        }
    }

    @Test
    void badRequestsAreAnsweredWithAnErrorSayingWhatIsWrong() {
        rdma = connect(fixture.rdma(0));
        assertThatThrownBy(() -> rdma.requestResponse(ByteBufPayload.create(FetchRequest.encode(clientAlloc(), 4, 7))).block(WAIT))
                .isInstanceOf(ApplicationErrorException.class).hasMessageContaining("key 7 is not held by shard 0 of 2")
                .hasMessageContaining("send it to shard 1");
        assertThatThrownBy(() -> rdma.requestResponse(ByteBufPayload.create(clientAlloc().buffer().writeShort(3))).block(WAIT))
                .isInstanceOf(ApplicationErrorException.class).hasMessageContaining("malformed fetch request");
        assertThat(rdma.isDisposed()).as("a bad request fails that request, not the connection").isFalse();
        rdma.fireAndForget(ByteBufPayload.create(clientAlloc().buffer().writeInt(9))).block(WAIT);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (fixture.servers.get(0).responder().rejectedPushes() == 0 && System.nanoTime() < deadline) {
            Thread.yield();
        }
        assertThat(fixture.servers.get(0).responder().rejectedPushes()).isEqualTo(1);
    }

    @Test
    void pushesApplySgdAndTheStreamAcksEachBatch() {
        rdma = connect(fixture.rdma(0));
        EmbeddingShard shard = fixture.servers.get(0).shard();
        float before = shard.get(10, 0);
        List<Integer> acks = rdma.requestChannel(Flux.range(0, 3).map(i -> ByteBufPayload.create(
                        PushBatch.encode(clientAlloc(), 16, new long[]{10, 12}, 0, 1 + i % 2, (r, c) -> 1f))))
                .map(p -> {
                    try {
                        return PushAck.decode(p.sliceData());
                    } finally {
                        p.release();
                    }
                }).collectList().block(WAIT);
        assertThat(acks).containsExactly(1, 2, 1);
        assertThat(shard.get(10, 0)).isEqualTo(before - 0.01f - 0.01f - 0.01f);
        rdma.fireAndForget(ByteBufPayload.create(PushBatch.encode(clientAlloc(), 16, new long[]{14}, 0, 1, (r, c) -> 100f))).block(WAIT);
        float expected = EmbeddingShard.initialValue(3, 14, 0) - 1f;
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (shard.get(14, 0) != expected && System.nanoTime() < deadline) {
            Thread.yield();
        }
        assertThat(shard.get(14, 0)).isEqualTo(expected);
    }

    @Test
    void aRunOfRowsIsAnsweredInTheSplitForm() {
        rdma = connect(fixture.rdma(0));
        Payload reply = rdma.requestResponse(ByteBufPayload.create(FetchRequest.encodeRange(clientAlloc(), 20, 2, 5))).block(WAIT);
        try {
            assertThat(reply.sliceMetadata().readableBytes()).as("the header as metadata").isEqualTo(FetchReply.HEADER_BYTES);
            assertThat(FetchReply.count(reply.sliceMetadata(), reply.sliceData())).isEqualTo(5);
            assertThat(FetchReply.dimension(reply.sliceMetadata(), reply.sliceData())).isEqualTo(16);
            assertThat(FetchReply.rows(reply.sliceMetadata(), reply.sliceData()).getFloat(4 * (16 * 4 + 3)))
                    .as("row 4 (key 28), column 3").isEqualTo(EmbeddingShard.initialValue(3, 28, 3));
        } finally {
            reply.release();
        }
    }

    /**
     * What the engine copies on send (load-independent): a run of rows goes in the split form, three
     * flat registered pieces (frame header, header as metadata, one slice of the table) that the
     * engine gathers in place: no copy. Scattered rows make a composite [header, slices...] that
     * RSocket nests in its own composite [frame header, data]; the engine gathers only flat
     * composites of at most three registered pieces, so it copies such a reply once.
     */
    @Test
    void aRunOfRowsIsSentWithoutACopyAndScatteredRowsWithOne() {
        rdma = connect(fixture.rdma(0));
        int replies = 20;
        long before = ShardFixture.counter(fixture.serverMeters, "rdma.copies.on.send");
        for (int i = 0; i < replies; i++) {
            Payload reply = rdma.requestResponse(ByteBufPayload.create(FetchRequest.encodeRange(clientAlloc(), 2L * i, 2, 256)))
                    .block(WAIT);
            assertThat(FetchReply.count(reply.sliceMetadata(), reply.sliceData())).isEqualTo(256);
            reply.release();
        }
        long afterRuns = ShardFixture.counter(fixture.serverMeters, "rdma.copies.on.send");
        assertThat(afterRuns - before).as("copies on send of %d replies of 256 consecutive rows (16 KiB)", replies).isZero();
        for (int i = 0; i < replies; i++) {
            Payload reply = rdma.requestResponse(ByteBufPayload.create(FetchRequest.encodeRange(clientAlloc(), 2L * i, 4, 128)))
                    .block(WAIT);
            assertThat(FetchReply.count(reply.sliceMetadata(), reply.sliceData())).isEqualTo(128);
            reply.release();
        }
        assertThat(ShardFixture.counter(fixture.serverMeters, "rdma.copies.on.send") - afterRuns)
                .as("copies on send of %d replies of 128 rows every other row", replies).isEqualTo(replies);
    }
}
