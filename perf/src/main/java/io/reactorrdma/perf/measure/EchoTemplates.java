package io.reactorrdma.perf.measure;

import io.netty.buffer.ByteBuf;

/** The message an echo loop sends, made once per connection. */
public final class EchoTemplates {

    private EchoTemplates() {
    }

    /** Fills {@code buf} with {@code size} pattern bytes (seeded by the connection number) and returns it. */
    public static ByteBuf filled(ByteBuf buf, int size, int connection) {
        buf.clear().writerIndex(size);
        Patterns.fill(buf.nioBuffer(0, size), 0x5eed0000L + connection);
        return buf;
    }
}
