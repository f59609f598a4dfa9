package io.reactorrdma.examples.ps.wire;

import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;

/** Length checks shared by the decoders. */
final class Wire {

    private Wire() {
    }

    /**
     * A big-endian view of the {@code size} bytes after {@code buf}'s writer index, to encode into with
     * one bounds check (each {@code writeFloat} on a leak-detecting buffer is recorded); the caller
     * advances the writer index.
     */
    static ByteBuffer writable(ByteBuf buf, int size) {
        buf.ensureWritable(size);
        return buf.nioBuffer(buf.writerIndex(), size);
    }

    /** The int at {@code offset} from the reader index, after checking it is there. */
    static int intAt(ByteBuf buf, int offset, String what, String message) {
        need(buf, offset + Integer.BYTES, what, message);
        return buf.getInt(buf.readerIndex() + offset);
    }

    static void need(ByteBuf buf, long bytes, String what, String message) {
        if (buf.readableBytes() < bytes) {
            throw new IllegalArgumentException("malformed " + message + ": " + buf.readableBytes() + " bytes, too short for its "
                    + what + " (needs " + bytes + "); send the layout " + layoutOf(message));
        }
    }

    static void exact(ByteBuf buf, long bytes, String counts, String message) {
        if (buf.readableBytes() != bytes) {
            throw new IllegalArgumentException("malformed " + message + ": " + counts + " need exactly " + bytes + " bytes but it has "
                    + buf.readableBytes() + "; send the layout " + layoutOf(message));
        }
    }

    static void positive(int value, String name, String message, int max) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException("malformed " + message + ": " + name + " " + value + " is outside 0.." + max
                    + "; send the layout " + layoutOf(message));
        }
    }

    private static String layoutOf(String message) {
        switch (message) {
            case FetchRequest.NAME: return FetchRequest.LAYOUT;
            case FetchReply.NAME: return FetchReply.LAYOUT;
            case PushBatch.NAME: return PushBatch.LAYOUT;
            default: return PushAck.LAYOUT;
        }
    }
}
