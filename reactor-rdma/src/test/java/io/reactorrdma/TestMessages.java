package io.reactorrdma;

import io.netty.buffer.ByteBuf;

import java.util.Random;
import java.util.zip.CRC32;

/** Messages with reproducible random contents, and their checksums. */
final class TestMessages {

    private TestMessages() {
    }

    /** {@code size} random bytes (from {@code seed}) in a buffer of the connection's registered allocator. */
    static ByteBuf message(RdmaConnection c, int size, long seed) {
        ByteBuf b = c.alloc().directBuffer(Math.max(1, size));
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return b.writeBytes(bytes); // one access: PARANOID leak detection records every access
    }

    /** CRC32 of the readable bytes. */
    static long crc(ByteBuf b) {
        CRC32 c = new CRC32();
        c.update(b.nioBuffer());
        return c.getValue();
    }
}
