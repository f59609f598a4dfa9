package io.reactorrdma.engine;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ResourceLeakDetector;
import io.reactorrdma.memory.RegisteredAllocator;
import io.reactorrdma.memory.RegisteredByteBufAllocator;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * Gathering a composite frame in place: the same scatter/gather entries as Netty's own view of
 * each piece gives, without the slice that view makes of RSocket's header buffer.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PayloadGatherTest {

    /** Frames gathered per measurement. */
    private static final int FRAMES = 500;
    /**
     * Bytes per frame the gathering thread may allocate on average: none is expected. Netty's
     * {@code internalComponent} sliced the header piece once per composite (~55 B).
     */
    private static final double MAX_BYTES_PER_FRAME = 8.0;

    private VerbsContext ctx;
    private RegisteredAllocator allocator;
    private RegisteredByteBufAllocator alloc;
    private ProtectionDomain pd;

    @BeforeEach
    void open() {
        ctx = SoftContext.openLoopback(SoftConfig.defaults());
        allocator = new RegisteredAllocator(ctx.allocPd());
        alloc = allocator.byteBufAllocator();
        pd = allocator.local().protectionDomain();
    }

    @AfterEach
    void close() {
        assertThat(allocator.liveBuffers()).as("live registered buffers after the test").isZero();
        assertThat(allocator.closeAndReport()).isZero();
        ctx.close();
    }

    /** As RSocket encodes a frame: a few header bytes in a default-sized buffer, then the payload. */
    private CompositeByteBuf frame() {
        ByteBuf header = alloc.buffer().writeInt(7).writeShort(0x1100);
        ByteBuf data = alloc.directBuffer(64, 64).writeZero(64);
        return alloc.compositeDirectBuffer().addComponents(true, header, data);
    }

    @Test
    void piecesReadInPlaceGiveTheEntriesNettysViewGives() {
        assertThat(CompositeComponents.AVAILABLE).as("this Netty's composite fields are readable").isTrue();
        CompositeByteBuf rsocketLike = frame();
        ByteBuf whole = alloc.directBuffer(100).writeZero(100);
        ByteBuf eight = alloc.buffer().writeLong(1);
        long eightAt3 = RegisteredByteBufAllocator.addressOf(eight) + 3;
        CompositeByteBuf mixed = alloc.compositeDirectBuffer().addComponents(true,
                eight,
                Unpooled.EMPTY_BUFFER,
                whole.retainedSlice(10, 30)); // Netty unwraps the slice: the piece is its parent, shifted
        whole.release();
        mixed.readerIndex(3);
        try {
            for (CompositeByteBuf c : new CompositeByteBuf[]{rsocketLike, mixed}) {
                assertThat(PayloadGather.inPlace(c, pd)).isTrue();
                int total = c.readableBytes();
                int[][] cases = {{0, total}, {0, 1}, {2, 4}, {1, total - 1}, {total - 3, 3}, {5, total - 7}};
                for (int[] k : cases) {
                    SendWr inPlace = new SendWr(8);
                    PayloadGather.addSges(inPlace, c, k[0], k[1]);
                    SendWr sliced = new SendWr(8);
                    PayloadGather.addSgesBySlices(sliced, c, c.readerIndex() + k[0], k[1]);
                    assertThat(inPlace.numSge()).as("entries for %d bytes at %d", k[1], k[0]).isEqualTo(sliced.numSge());
                    for (int i = 0; i < sliced.numSge(); i++) {
                        assertThat(inPlace.sgeAddress(i)).isEqualTo(sliced.sgeAddress(i));
                        assertThat(inPlace.sgeLength(i)).isEqualTo(sliced.sgeLength(i));
                        assertThat(inPlace.sgeLkey(i)).isEqualTo(sliced.sgeLkey(i));
                    }
                    assertThat(inPlace.totalLength()).isEqualTo(k[1]);
                }
            }
            SendWr first = new SendWr(8);
            PayloadGather.addSges(first, mixed, 0, 1);
            assertThat(first.sgeAddress(0)).as("the reader index counts").isEqualTo(eightAt3);
        } finally {
            rsocketLike.release();
            mixed.release();
        }
    }

    @Test
    void theLastPieceIsWhereTheLastEntryOfTheWholeMessagePoints() {
        ByteBuf whole = alloc.directBuffer(100).writeZero(100);
        CompositeByteBuf mixed = alloc.compositeDirectBuffer().addComponents(true,
                alloc.buffer().writeLong(1), Unpooled.EMPTY_BUFFER, whole.retainedSlice(10, 30));
        ByteBuf contiguous = whole.retainedSlice(5, 50);
        whole.release();
        try {
            for (ByteBuf m : new ByteBuf[]{frame(), mixed, contiguous}) {
                int start = m.readerIndex();
                for (int skip : new int[]{0, 3, m.readableBytes() - 2}) {
                    ByteBuf view = m.readerIndex(start + skip);
                    SendWr wr = new SendWr(8);
                    PayloadGather.addSges(wr, view, 0, view.readableBytes());
                    int last = wr.numSge() - 1;
                    PayloadGather.Piece piece = new PayloadGather.Piece();
                    PayloadGather.lastPiece(view, piece);
                    assertThat(piece.address).as("address, %d bytes skipped", skip).isEqualTo(wr.sgeAddress(last));
                    assertThat(piece.length).as("length, %d bytes skipped", skip).isEqualTo(wr.sgeLength(last));
                    assertThat(piece.region.lkey()).isEqualTo(wr.sgeLkey(last));
                    if (view instanceof CompositeByteBuf) {
                        PayloadGather.Piece bySlices = new PayloadGather.Piece();
                        PayloadGather.lastPieceBySlices((CompositeByteBuf) view, bySlices);
                        assertThat(bySlices.address).isEqualTo(piece.address);
                        assertThat(bySlices.length).isEqualTo(piece.length);
                        assertThat(bySlices.region).isSameAs(piece.region);
                    }
                    m.readerIndex(start);
                }
                m.release();
            }
        } finally {
            if (mixed.refCnt() > 0) {
                mixed.release();
            }
        }
    }

    @Test
    void aCompositeWithForeignOrTooManyPiecesIsNotGatheredInPlace() {
        CompositeByteBuf heap = alloc.compositeDirectBuffer().addComponents(true, alloc.buffer().writeInt(1),
                Unpooled.buffer(4).writeInt(2));
        CompositeByteBuf many = alloc.compositeDirectBuffer();
        for (int i = 0; i <= PayloadGather.MAX_PIECES; i++) {
            many.addComponent(true, alloc.buffer(8).writeLong(i));
        }
        try {
            assertThat(PayloadGather.inPlace(heap, pd)).isFalse();
            assertThat(PayloadGather.inPlace(many, pd)).isFalse();
            many.readerIndex(8); // the first piece is read: the rest fit
            assertThat(PayloadGather.inPlace(many, pd)).isTrue();
        } finally {
            heap.release();
            many.release();
        }
    }

    @Test
    void gatheringAFrameAllocatesNothing() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeThat(threads.isThreadAllocatedMemorySupported()).as("per-thread allocation counting").isTrue();
        threads.setThreadAllocatedMemoryEnabled(true);
        ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        CompositeByteBuf[] warm = new CompositeByteBuf[FRAMES];
        CompositeByteBuf[] measured = new CompositeByteBuf[FRAMES];
        SendWr wr = new SendWr(PayloadGather.MAX_SGE);
        long allocated;
        try {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED); // its wrappers are not the path's
            for (int i = 0; i < FRAMES; i++) {
                warm[i] = frame();
                measured[i] = frame();
            }
            gather(warm, wr);
            long tid = Thread.currentThread().getId();
            long before = threads.getThreadAllocatedBytes(tid);
            gather(measured, wr);
            allocated = threads.getThreadAllocatedBytes(tid) - before;
        } finally {
            ResourceLeakDetector.setLevel(level);
            for (int i = 0; i < FRAMES; i++) {
                if (warm[i] != null) {
                    warm[i].release();
                }
                if (measured[i] != null) {
                    measured[i].release();
                }
            }
        }
        assertThat((double) allocated / FRAMES)
                .as("bytes allocated per composite frame checked and gathered (%d in all for %d)", allocated, FRAMES)
                .isLessThan(MAX_BYTES_PER_FRAME);
    }

    private void gather(CompositeByteBuf[] frames, SendWr wr) {
        for (CompositeByteBuf c : frames) {
            if (!PayloadGather.inPlace(c, pd)) {
                throw new AssertionError("a registered two-piece frame was not gathered in place");
            }
            wr.clearSges();
            PayloadGather.addSges(wr, c, 0, c.readableBytes());
            if (wr.totalLength() != c.readableBytes()) {
                throw new AssertionError(wr.totalLength() + " bytes gathered of " + c.readableBytes());
            }
        }
    }
}
