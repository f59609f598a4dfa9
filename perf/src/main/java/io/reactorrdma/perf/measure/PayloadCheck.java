package io.reactorrdma.perf.measure;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/**
 * Checks an answer against the bytes that were sent: its length and, for more than 64 bytes, its
 * first and last 8 bytes — the first answer in full. One per connection; not thread-safe (each
 * connection's answers arrive one after the other).
 */
public final class PayloadCheck {

    private static final int FULL_CHECK_BYTES = 64;

    private final ByteBuf expected;
    private boolean checkedOnce;

    /** Checks against {@code expected} (the caller keeps it). */
    public PayloadCheck(ByteBuf expected) {
        this.expected = expected;
    }

    public boolean matches(ByteBuf answer) {
        int n = expected.readableBytes();
        if (answer.readableBytes() != n) {
            return false;
        }
        if (!checkedOnce || n <= FULL_CHECK_BYTES) {
            checkedOnce = true;
            return ByteBufUtil.equals(expected, answer);
        }
        int t = expected.readerIndex();
        int e = answer.readerIndex();
        return expected.getLong(t) == answer.getLong(e) && expected.getLong(t + n - 8) == answer.getLong(e + n - 8);
    }

    public int expectedBytes() {
        return expected.readableBytes();
    }
}
