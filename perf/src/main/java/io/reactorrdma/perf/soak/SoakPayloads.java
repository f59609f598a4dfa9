package io.reactorrdma.perf.soak;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.SplittableRandom;
import java.util.zip.CRC32;

/**
 * The soak's wire formats, so that the receiver can prove each message intact on its own:
 * <ul>
 *   <li>a data message of 16 bytes or more: {@code seq} (long, at least 0), its length (int), the
 *       CRC32 of the body (int), then a body of pseudo-random bytes seeded by {@code seq};</li>
 *   <li>a data message under 16 bytes (no room for a header): byte 0 is the low byte of {@code seq} (its
 *       tag), byte {@code i > 0} is {@code 0xA5 ^ length ^ i ^ tag};</li>
 *   <li>a direct-write check (16 bytes): {@code ~writeSeq} (negative), the length and the CRC32 of the
 *       bytes the sender wrote into the receiver's slot just before it;</li>
 *   <li>a receipt (receiver to sender, 16 bytes): the {@code seq} (or {@code ~writeSeq}, or
 *       {@link #tinyKey} for a message under 16 bytes), the length and a {@code STATUS_*};</li>
 *   <li>the announcement (receiver's first message, 24 bytes): {@link #ANNOUNCE_MAGIC}, the slot's
 *       size, address and rkey, for direct writes.</li>
 * </ul>
 */
final class SoakPayloads {

    static final int HEADER = 16;
    static final int RECEIPT = 16;
    static final int ANNOUNCE = 24;
    static final int ANNOUNCE_MAGIC = 0x50AC_0001;
    /** The base of the keys a receipt carries for a message too short for a header ({@link #tinyKey}). */
    static final long TINY = Long.MIN_VALUE;

    static final int STATUS_OK = 0;
    static final int STATUS_BAD_LENGTH = 1;
    static final int STATUS_BAD_CRC = 2;
    static final int STATUS_BAD_TINY = 3;
    static final int STATUS_BAD_DIRECT_WRITE = 4;
    /** The receiver cancelled its receive after this message: it drops what follows. */
    static final int STATUS_RECEIVE_CANCELLED = 5;

    private SoakPayloads() {
    }

    /** A data message of {@code size} bytes with sequence number {@code seq}, from {@code alloc}. */
    static ByteBuf message(ByteBufAllocator alloc, long seq, int size) {
        ByteBuf b = alloc.directBuffer(size, size);
        if (size < HEADER) {
            byte tag = (byte) seq;
            for (int i = 0; i < size; i++) {
                b.writeByte(i == 0 ? tag : tinyByte(size, i, tag));
            }
            return b;
        }
        b.writerIndex(HEADER);
        fillBody(b, seq, size - HEADER);
        b.setLong(0, seq);
        b.setInt(8, size);
        b.setInt(12, crc(b, HEADER, size - HEADER));
        return b;
    }

    /** {@code length} pseudo-random bytes seeded by {@code seed}, from {@code alloc}: a direct write's payload. */
    static ByteBuf directWrite(ByteBufAllocator alloc, long seed, int length) {
        ByteBuf b = alloc.directBuffer(length, length);
        fillBody(b, seed, length);
        return b;
    }

    static ByteBuf directWriteCheck(ByteBufAllocator alloc, long writeSeq, ByteBuf payload) {
        ByteBuf b = alloc.directBuffer(HEADER, HEADER);
        return b.writeLong(~writeSeq).writeInt(payload.readableBytes())
                .writeInt(crc(payload, payload.readerIndex(), payload.readableBytes()));
    }

    static ByteBuf receipt(ByteBufAllocator alloc, long seq, int length, int status) {
        ByteBuf b = alloc.directBuffer(RECEIPT, RECEIPT);
        return b.writeLong(seq).writeInt(length).writeInt(status);
    }

    static ByteBuf announcement(ByteBufAllocator alloc, int slotSize, long address, int rkey) {
        ByteBuf b = alloc.directBuffer(ANNOUNCE, ANNOUNCE);
        return b.writeInt(ANNOUNCE_MAGIC).writeInt(slotSize).writeLong(address).writeInt(rkey).writeInt(0);
    }

    /**
     * Checks a data message (not a direct-write check) and returns its receipt's fields: the
     * sequence number (a {@link #tinyKey} under 16 bytes) and a status.
     */
    static long sequenceOf(ByteBuf m) {
        int size = m.readableBytes();
        if (size == 0) {
            return TINY;
        }
        return size < HEADER ? TINY + 1 + (m.getByte(m.readerIndex()) & 0xFF) : m.getLong(m.readerIndex());
    }

    /**
     * What a receipt carries for a message under 16 bytes with sequence number {@code seq}: {@link #TINY}
     * for an empty one, else {@code TINY + 1 + (seq & 0xFF)} (its tag), so that the sender tells apart
     * short messages of one size unless 256 lie between them.
     */
    static long tinyKey(long seq, int size) {
        return size == 0 ? TINY : TINY + 1 + (seq & 0xFF);
    }

    /** Whether a receipt's sequence field is a {@link #tinyKey}. */
    static boolean isTinyKey(long receiptSeq) {
        return receiptSeq >= TINY && receiptSeq <= TINY + 256;
    }

    static boolean isDirectWriteCheck(ByteBuf m) {
        return m.readableBytes() == HEADER && m.getLong(m.readerIndex()) < 0;
    }

    /** The status of data message {@code m}: intact, or what is wrong with it. */
    static int verify(ByteBuf m) {
        int size = m.readableBytes();
        int at = m.readerIndex();
        if (size < HEADER) {
            byte tag = size == 0 ? 0 : m.getByte(at);
            for (int i = 1; i < size; i++) {
                if (m.getByte(at + i) != tinyByte(size, i, tag)) {
                    return STATUS_BAD_TINY;
                }
            }
            return STATUS_OK;
        }
        if (m.getInt(at + 8) != size) {
            return STATUS_BAD_LENGTH;
        }
        return m.getInt(at + 12) == crc(m, at + HEADER, size - HEADER) ? STATUS_OK : STATUS_BAD_CRC;
    }

    /** The status of direct-write check {@code check} against the receiver's {@code slot}. */
    static int verifyDirectWrite(ByteBuf check, ByteBuf slot) {
        int at = check.readerIndex();
        int length = check.getInt(at + 8);
        if (length < 0 || length > slot.capacity()) {
            return STATUS_BAD_LENGTH;
        }
        return check.getInt(at + 12) == crc(slot, 0, length) ? STATUS_OK : STATUS_BAD_DIRECT_WRITE;
    }

    static String statusName(int status) {
        switch (status) {
            case STATUS_OK: return "ok";
            case STATUS_BAD_LENGTH: return "length field differs from the bytes received";
            case STATUS_BAD_CRC: return "body CRC32 differs";
            case STATUS_BAD_TINY: return "short message's bytes differ";
            case STATUS_BAD_DIRECT_WRITE: return "direct write's bytes in the slot differ";
            case STATUS_RECEIVE_CANCELLED: return "receive cancelled";
            default: return "status " + status;
        }
    }

    private static byte tinyByte(int size, int i, byte tag) {
        return (byte) (0xA5 ^ size ^ i ^ tag);
    }

    /** Writes {@code length} pseudo-random bytes through one NIO view (one leak-detector record, not one per long). */
    private static void fillBody(ByteBuf b, long seed, int length) {
        b.ensureWritable(length);
        SplittableRandom random = new SplittableRandom(seed);
        if (b.nioBufferCount() != 1) {
            for (int i = 0; i < length; i++) {
                b.writeByte(random.nextInt());
            }
            return;
        }
        java.nio.ByteBuffer view = b.nioBuffer(b.writerIndex(), length);
        while (view.remaining() >= 8) {
            view.putLong(random.nextLong());
        }
        while (view.hasRemaining()) {
            view.put((byte) random.nextInt());
        }
        b.writerIndex(b.writerIndex() + length);
    }

    private static int crc(ByteBuf b, int from, int length) {
        CRC32 crc = new CRC32();
        if (b.nioBufferCount() == 1) {
            crc.update(b.nioBuffer(from, length));
        } else {
            for (java.nio.ByteBuffer part : b.nioBuffers(from, length)) {
                crc.update(part);
            }
        }
        return (int) crc.getValue();
    }
}
