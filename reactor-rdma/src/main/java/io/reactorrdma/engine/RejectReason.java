package io.reactorrdma.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Why a server refused a connection, carried in the reject's private data so that the client's
 * error can say it: a 4-byte magic 'RRDJ' (little-endian) and the reason in UTF-8, cut to fit the
 * 148 bytes RDMA CM carries with a reject.
 */
final class RejectReason {

    static final int MAGIC = 0x4A445252;
    /** RDMA CM's private-data limit for a reject (IB CM REJ). */
    static final int MAX_SIZE = 148;

    private RejectReason() {
    }

    static ByteBuffer encode(String reason) {
        byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(text.length, MAX_SIZE - 4);
        while (n < text.length && n > 0 && (text[n] & 0xC0) == 0x80) {
            n--; // do not cut a UTF-8 sequence in half
        }
        ByteBuffer b = ByteBuffer.allocate(4 + n).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).put(text, 0, n).flip();
        return b;
    }

    /** The reason in {@code data}, or null when the peer gave none we can read. */
    static String decode(ByteBuffer data) {
        ByteBuffer b = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (b.remaining() < 4 || b.getInt() != MAGIC) {
            return null;
        }
        byte[] text = new byte[b.remaining()];
        b.get(text);
        return new String(text, StandardCharsets.UTF_8);
    }
}
