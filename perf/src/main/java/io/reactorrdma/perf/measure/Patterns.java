package io.reactorrdma.perf.measure;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

/** Test data: pseudo-random bytes, so that a region left zero or half-written shows in its checksum. */
public final class Patterns {

    private Patterns() {
    }

    /** Fills {@code buffer} (from its position to its limit) with bytes from {@code seed}. */
    public static void fill(ByteBuffer buffer, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        ByteBuffer b = buffer.duplicate();
        while (b.remaining() >= 8) {
            b.putLong(random.nextLong());
        }
        while (b.hasRemaining()) {
            b.put((byte) random.nextInt());
        }
    }

    /** CRC32 of the first {@code length} bytes of {@code buffer}, as lower-case hex. */
    public static String crc32(ByteBuffer buffer, int length) {
        CRC32 crc = new CRC32();
        ByteBuffer b = buffer.duplicate();
        b.limit(b.position() + length);
        crc.update(b);
        return Long.toHexString(crc.getValue());
    }
}
