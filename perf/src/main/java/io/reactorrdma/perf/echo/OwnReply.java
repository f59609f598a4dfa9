package io.reactorrdma.perf.echo;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.reactorrdma.perf.cli.EchoReply;
import reactor.core.publisher.Flux;

/**
 * One connection's reply under {@code --reply own}: a buffer of the server's own holding a copy of the first
 * message of the current size, answered to every message of that size as a retained duplicate (no copy per
 * message: the copy is made when the size changes). The caller keeps ownership of the message it passes; the
 * holder owns its buffer until {@link #close()}, which may come from another thread (a cancel) while a message is
 * answered: both hold the lock, uncontended but for that.
 */
final class OwnReply implements AutoCloseable {

    private final ByteBufAllocator alloc;
    private ByteBuf held;
    private boolean closed;

    OwnReply(ByteBufAllocator alloc) {
        this.alloc = alloc;
    }

    /**
     * What one connection's server sends back for {@code messages} (owned by the subscriber) under {@code reply}: the
     * messages themselves ({@link EchoReply#ECHO}) or {@link #answers}.
     */
    static Flux<ByteBuf> replies(EchoReply reply, ByteBufAllocator alloc, Flux<ByteBuf> messages) {
        return reply == EchoReply.OWN ? answers(alloc, messages) : messages;
    }

    /**
     * {@code --reply own} on one connection: each of {@code messages} (owned by the subscriber, released here once
     * answered) answered from a buffer of {@code alloc}, which is released when the answers end, fail or are cancelled.
     */
    static Flux<ByteBuf> answers(ByteBufAllocator alloc, Flux<ByteBuf> messages) {
        return Flux.using(() -> new OwnReply(alloc), own -> messages.map(message -> {
            try {
                return own.answer(message);
            } finally {
                message.release();
            }
        }), OwnReply::close);
    }

    /**
     * The answer to {@code message}: the same bytes, from the server's own buffer; the caller sends (and so releases) it.
     * After {@link #close()} (a message that raced the connection's end) the message itself, retained, so that nothing
     * is held past the close.
     */
    synchronized ByteBuf answer(ByteBuf message) {
        if (closed) {
            return message.retain();
        }
        int n = message.readableBytes();
        if (held == null || held.readableBytes() != n) {
            if (held != null) {
                held.release();
            }
            held = alloc.directBuffer(n, n);
            held.writeBytes(message, message.readerIndex(), n);
        }
        return held.retainedDuplicate();
    }

    /** Releases the held buffer (the replies sent hold their own references). */
    @Override
    public synchronized void close() {
        closed = true;
        if (held != null) {
            held.release();
            held = null;
        }
    }
}
