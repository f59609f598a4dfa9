package io.reactorrdma.engine;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.reactorrdma.memory.Chunk;
import io.reactorrdma.memory.RegisteredByteBufAllocator;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.work.SendWr;

/**
 * A message's bytes as scatter/gather entries, so that the NIC gathers them and the engine copies
 * nothing: one entry for a contiguous registered buffer, one per piece for a
 * {@link CompositeByteBuf} whose readable pieces all live in registered memory — RSocket encodes
 * every frame that way (a header buffer, then metadata and data). The memory must be registered in
 * the engine's own protection domain: a key is meaningful only there (a buffer of another
 * {@code RdmaResources} carries another context's keys, which name other memory here, or none).
 * Anything else is copied once by the engine into one registered buffer.
 *
 * <p>A composite's pieces are read in place ({@link CompositeComponents}): asking Netty for a
 * piece would slice RSocket's header buffer (a new object per frame).
 */
final class PayloadGather {

    /** Pieces of a composite message gathered in place: with the wire header, four entries per request. */
    static final int MAX_PIECES = 3;
    /** Scatter/gather entries of the engine's send requests: the header plus {@link #MAX_PIECES}. */
    static final int MAX_SGE = MAX_PIECES + 1;

    private PayloadGather() {
    }

    /**
     * Whether {@code msg} can be sent as it is: registered in {@code pd}, and contiguous or in at
     * most {@link #MAX_PIECES} pieces.
     */
    static boolean inPlace(ByteBuf msg, ProtectionDomain pd) {
        if (msg instanceof CompositeByteBuf) {
            return gatherable((CompositeByteBuf) msg, pd);
        }
        return registeredIn(msg, pd) && msg.nioBufferCount() == 1 && msg.hasMemoryAddress();
    }

    private static boolean registeredIn(ByteBuf b, ProtectionDomain pd) {
        Chunk chunk = RegisteredByteBufAllocator.regionOf(b);
        return chunk != null && chunk.protectionDomain() == pd;
    }

    private static boolean gatherable(CompositeByteBuf c, ProtectionDomain pd) {
        int from = c.readerIndex();
        int to = c.writerIndex();
        if (from == to) {
            return false;
        }
        Object[] components = CompositeComponents.AVAILABLE ? CompositeComponents.of(c) : null;
        int pieces = 0;
        for (int i = c.toComponentIndex(from), last = c.toComponentIndex(to - 1); i <= last; i++) {
            ByteBuf piece;
            if (components != null) {
                Object component = components[i];
                if (CompositeComponents.endOffset(component) == c.toByteIndex(i)) {
                    continue; // empty
                }
                piece = CompositeComponents.buf(component);
            } else {
                piece = c.internalComponent(i);
                if (piece.readableBytes() == 0) {
                    continue;
                }
            }
            if (++pieces > MAX_PIECES || piece instanceof CompositeByteBuf
                    || !registeredIn(piece, pd) || !piece.hasMemoryAddress()) {
                return false;
            }
        }
        return true;
    }

    /** Where the last piece of a message lies ({@link #lastPiece}): one instance per engine, reused on its I/O thread. */
    static final class Piece {
        /** The provider address of the piece's first byte. */
        long address;
        /** Its bytes: the message's last ones. */
        int length;
        /** The registered region holding it. */
        Chunk region;
    }

    /**
     * Where the last piece of {@code msg}'s readable bytes lies ({@link #inPlace} holds): the whole
     * message when it is contiguous, else the last non-empty piece of the composite. A pull with an
     * inline head names that piece to the peer and carries the bytes before it in its request.
     */
    static void lastPiece(ByteBuf msg, Piece out) {
        if (!(msg instanceof CompositeByteBuf)) {
            out.address = RegisteredByteBufAllocator.addressOf(msg);
            out.length = msg.readableBytes();
            out.region = RegisteredByteBufAllocator.regionOf(msg);
            return;
        }
        CompositeByteBuf c = (CompositeByteBuf) msg;
        if (CompositeComponents.AVAILABLE) {
            int to = c.writerIndex();
            int last = c.toComponentIndex(to - 1); // the last component holding a readable byte: never an empty one
            int pos = Math.max(c.readerIndex(), c.toByteIndex(last));
            Object component = CompositeComponents.of(c)[last];
            ByteBuf piece = CompositeComponents.buf(component);
            out.length = to - pos;
            out.address = RegisteredByteBufAllocator.addressAt(piece, pos + CompositeComponents.adjustment(component));
            out.region = RegisteredByteBufAllocator.regionOf(piece);
        } else {
            lastPieceBySlices(c, out);
        }
    }

    /** {@link #lastPiece} of a composite through Netty's public view of its pieces. */
    static void lastPieceBySlices(CompositeByteBuf c, Piece out) {
        int to = c.writerIndex();
        int last = c.toComponentIndex(to - 1);
        int pos = Math.max(c.readerIndex(), c.toByteIndex(last));
        ByteBuf piece = c.internalComponent(last);
        out.length = to - pos;
        out.address = RegisteredByteBufAllocator.addressOf(piece) + (pos - c.toByteIndex(last));
        out.region = RegisteredByteBufAllocator.regionOf(piece);
    }

    /** Adds the entries for {@code length} bytes at {@code offset} into {@code msg}'s readable bytes ({@link #inPlace} holds). */
    static void addSges(SendWr wr, ByteBuf msg, int offset, int length) {
        if (!(msg instanceof CompositeByteBuf)) {
            wr.addSge(RegisteredByteBufAllocator.addressOf(msg) + offset, length, RegisteredByteBufAllocator.regionOf(msg).lkey());
            return;
        }
        CompositeByteBuf c = (CompositeByteBuf) msg;
        if (CompositeComponents.AVAILABLE) {
            addSgesInPlace(wr, c, c.readerIndex() + offset, length);
        } else {
            addSgesBySlices(wr, c, c.readerIndex() + offset, length);
        }
    }

    /** Each piece read where the composite keeps it: nothing allocated. */
    private static void addSgesInPlace(SendWr wr, CompositeByteBuf c, int pos, int length) {
        Object[] components = CompositeComponents.of(c);
        int end = pos + length;
        for (int i = c.toComponentIndex(pos); pos < end; i++) {
            Object component = components[i];
            int n = Math.min(CompositeComponents.endOffset(component), end) - pos;
            if (n > 0) {
                ByteBuf piece = CompositeComponents.buf(component);
                wr.addSge(RegisteredByteBufAllocator.addressAt(piece, pos + CompositeComponents.adjustment(component)), n,
                        RegisteredByteBufAllocator.regionOf(piece).lkey());
                pos += n;
            }
        }
    }

    /** Each piece through Netty's public view of it, which slices a piece narrower than its buffer once per composite. */
    static void addSgesBySlices(SendWr wr, CompositeByteBuf c, int pos, int length) {
        int end = pos + length;
        for (int i = c.toComponentIndex(pos); pos < end; i++) {
            ByteBuf piece = c.internalComponent(i);
            int within = pos - c.toByteIndex(i);
            int n = Math.min(piece.readableBytes() - within, end - pos);
            if (n > 0) {
                wr.addSge(RegisteredByteBufAllocator.addressOf(piece) + within, n, RegisteredByteBufAllocator.regionOf(piece).lkey());
                pos += n;
            }
        }
    }
}
