package io.reactorrdma.engine;

import io.reactorrdma.config.IdleStrategy;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.reactorrdma.engine.EnginePullRendezvousTest.Checker;
import io.reactorrdma.engine.EnginePullRendezvousTest.Server;
import io.reactorrdma.memory.RegisteredAllocator;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import io.reactorrdma.verbs.soft.fault.SoftFaults;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.reactorrdma.engine.EnginePullRendezvousTest.KIB;
import static io.reactorrdma.engine.EnginePullRendezvousTest.MIB;
import static io.reactorrdma.engine.EnginePullRendezvousTest.WAIT;
import static io.reactorrdma.engine.EnginePullRendezvousTest.awaitTrue;
import static io.reactorrdma.engine.EnginePullRendezvousTest.message;
import static io.reactorrdma.engine.EnginePullRendezvousTest.pullConfig;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pull rendezvous of messages in pieces, as RSocket sends a frame: a small head (frame header,
 * metadata) in the connection's memory and the data in memory the peer may read. The head travels
 * inside the PULL_REQUEST, the peer READs the data where it lies: no copy, no WRITE round trip.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class EnginePullHeadTest {

    /** A CRC-checked message of {@code size} bytes whose first {@code heads} bytes lie in local pieces, the rest in {@code tail}. */
    static ByteBuf inPieces(RegisteredAllocator memory, ByteBufAllocator tail, int size, int seq, int... heads) {
        ByteBufAllocator[] where = new ByteBufAllocator[heads.length + 1];
        int[] lengths = new int[heads.length + 1];
        int rest = size;
        for (int i = 0; i < heads.length; i++) {
            where[i] = memory.byteBufAllocator();
            lengths[i] = heads[i];
            rest -= heads[i];
        }
        where[heads.length] = tail;
        lengths[heads.length] = rest;
        return pieces(memory, seq, where, lengths);
    }

    /** A CRC-checked message in pieces: piece {@code i} holds {@code lengths[i]} bytes allocated from {@code where[i]}. */
    static ByteBuf pieces(RegisteredAllocator memory, int seq, ByteBufAllocator[] where, int[] lengths) {
        int size = 0;
        for (int n : lengths) {
            size += n;
        }
        ByteBuf whole = message(Unpooled.buffer(size), size, seq);
        CompositeByteBuf c = memory.byteBufAllocator().compositeDirectBuffer(lengths.length);
        for (int i = 0; i < lengths.length; i++) {
            c.addComponent(true, where[i].directBuffer(lengths[i]).writeBytes(whole, lengths[i]));
        }
        whole.release();
        return c;
    }

    @Test
    void aMessageWhoseLastPieceIsReadableIsPulledWhereItLiesWithItsHeadInline() throws Exception {
        Server server = new Server();
        // copies off: whatever is not pulled in place goes by WRITE rendezvous
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults()), pullConfig(),
                IdleStrategy.BLOCK, server)) {
            EngineSocket a = h.client.openSocket(h.address(), WAIT).get(30, TimeUnit.SECONDS);
            Checker ca = server.next();
            ByteBufAllocator shared = h.clientMemory.remoteReadableByteBufAllocator();
            ByteBufAllocator local = h.clientMemory.byteBufAllocator();
            List<Integer> expected = new ArrayList<>();
            int seq = 0;
            // pulled in place: RSocket's shape (header, metadata, data), one head piece, the largest head, no head at all,
            // and a tail in this engine's own readable pool
            ByteBuf[] pulled = {
                    inPieces(h.clientMemory, shared, 64 * KIB + 1, seq++, 9, 20),
                    inPieces(h.clientMemory, shared, 300 * KIB, seq++, 9),
                    inPieces(h.clientMemory, shared, MIB, seq++, WireHeader.PULL_HEAD_MAX - 24, 24),
                    message(shared.directBuffer(2 * MIB), 2 * MIB, seq++),
                    inPieces(h.clientMemory, a.remoteReadableAllocator(), 700 * KIB, seq++, 100),
            };
            // not readable in place: a head over the limit, a readable piece that is not the last one
            ByteBuf[] rendezvous = {
                    inPieces(h.clientMemory, shared, 300 * KIB, seq++, WireHeader.PULL_HEAD_MAX + 1),
                    pieces(h.clientMemory, seq++, new ByteBufAllocator[] {local, shared, local}, new int[] {9, 64 * KIB, 200 * KIB}),
            };
            int next = seq;
            for (int i = 0; i < pulled.length; i++) {
                expected.add(i);
                assertThat(a.offer(pulled[i])).isTrue();
                expected.add(next);
                assertThat(a.offer(message(local.directBuffer(100), 100, next++))).isTrue(); // eager, in order between them
            }
            for (int i = 0; i < rendezvous.length; i++) {
                expected.add(pulled.length + i);
                assertThat(a.offer(rendezvous[i])).isTrue();
            }

            awaitTrue(() -> ca.received.get() == expected.size(), () -> "all messages arrive: " + ca.received + "/" + expected.size());
            assertThat(ca.errors).isEmpty();
            assertThat(ca.sequence()).as("socket order").isEqualTo(expected);
            assertThat(h.server.metrics().messagesPulled()).as("pulled in place").isEqualTo(pulled.length);
            assertThat(h.server.metrics().rendezvousRoundTrips()).as("the others by WRITE rendezvous").isEqualTo(rendezvous.length);
            assertThat(h.client.metrics().pullCopies()).as("nothing copied for pull").isZero();
            assertThat(h.client.metrics().copiesOnSend()).as("nothing copied to send").isZero();
            awaitTrue(() -> h.clientMemory.remoteReadable().statistics().liveBuffers() == 0 && h.clientMemory.readableLiveBuffers() == 0,
                    () -> "sources released after the notices: " + h.clientMemory.remoteReadable().statistics().liveBuffers() + " shared, "
                            + h.clientMemory.readableLiveBuffers() + " per peer live");
            a.close();
        }
    }

    @Test
    void aPullWhoseInlineHeadFindsNoDestinationIsRefusedAndTheSocketGoesOn() throws Exception {
        Server server = new Server();
        AtomicInteger contexts = new AtomicInteger();
        // the server may register 12 MiB: its pool blocks fit, a 12 MiB destination does not
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults(),
                contexts.getAndIncrement() == 0 ? SoftFaults.none()
                : SoftFaults.none().failRegistrationsAbove(12L << 20)), pullConfig(), IdleStrategy.BLOCK, server)) {
            EngineSocket a = h.client.openSocket(h.address(), WAIT).get(30, TimeUnit.SECONDS);
            Checker ca = server.next();
            CompletableFuture<RuntimeException> refused = new CompletableFuture<>();
            a.outboundListener(new EngineSocket.OutboundListener() {
                @Override
                public void onSent(int messages) {
                }

                @Override
                public void onRejected(ByteBuf message, long ordinal, RuntimeException error) {
                    message.release();
                    refused.complete(error);
                }
            });
            ByteBufAllocator shared = h.clientMemory.remoteReadableByteBufAllocator();
            assertThat(a.offer(inPieces(h.clientMemory, shared, 12 * MIB, 1, 9, 20))).isTrue();
            assertThat(a.offer(inPieces(h.clientMemory, shared, MIB, 2, 9, 20))).isTrue();

            assertThat(refused.get(30, TimeUnit.SECONDS)).isInstanceOf(MessageRefusedException.class)
                    .hasMessageContaining("could not allocate 12 MiB").hasMessageContaining("injected fault");
            awaitTrue(() -> ca.received.get() == 1, () -> "the next message arrives");
            assertThat(ca.errors).isEmpty();
            assertThat(ca.sequence()).containsExactly(2);
            awaitTrue(() -> h.clientMemory.remoteReadable().statistics().liveBuffers() == 0,
                    () -> "sources released: " + h.clientMemory.remoteReadable().statistics().liveBuffers() + " live");
            a.close();
        }
    }
}
