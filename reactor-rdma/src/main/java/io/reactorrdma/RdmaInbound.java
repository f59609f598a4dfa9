package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import reactor.core.publisher.Flux;

/** The receiving side of an {@link RdmaConnection}. */
public interface RdmaInbound {

    /**
     * The messages, one {@link ByteBuf} per message, in order, zero-copy (each buffer is the
     * registered memory the message arrived in). The subscriber releases each buffer. Only one
     * subscriber; its demand is what lets the peer send more (a slow subscriber stops the sender).
     */
    Flux<ByteBuf> receive();
}
