package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * The sending side of an {@link RdmaConnection}, like Reactor Netty's {@code NettyOutbound}:
 * {@code send} returns an outbound whose {@link #then()} completes when everything was handed to
 * the engine (or fails with why not). The outbound itself is a {@code Publisher<Void>}, so a
 * handler can return {@code out.send(...)}.
 */
public interface RdmaOutbound extends Publisher<Void> {

    /**
     * Sends each buffer as one message (ownership passes: the transport releases them). Requests
     * from {@code messages} only as the connection can take them: free work requests, receive
     * credits at the peer, send-window room and the peer socket's allowance. Buffers from
     * {@link #alloc()} are sent without a copy; others are copied once into registered memory. A
     * large message in memory its peer may read (a large buffer of {@link #alloc()},
     * {@code RdmaConnection.allocateRemoteReadable}, the allocator's remote-readable memory; or up
     * to {@code EngineConfig.pullCopyLimit}, 64 KiB by default, copied there) goes by pull rendezvous:
     * the send completes only once the peer has read and released it, and fails if the peer
     * refuses it (no memory to read it into).
     */
    RdmaOutbound send(Publisher<? extends ByteBuf> messages);

    /** Completes when every send so far completed; fails with the first error. */
    Mono<Void> then();

    /** The connection's allocator ({@code RdmaConnection.alloc()}): buffers born here need no copy to send. */
    ByteBufAllocator alloc();
}
