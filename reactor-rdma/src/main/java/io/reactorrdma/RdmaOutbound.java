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
     * {@link #alloc()} are sent without a copy when they go eagerly or by WRITE rendezvous; others
     * are copied once into registered memory. A large message allocated where its peer may read it
     * ({@code RdmaConnection.allocateRemoteReadable}), or up to {@code EngineConfig.pullCopyLimit}
     * (0 by default) and copied there, goes by pull rendezvous; it counts as sent once the peer was
     * told of it, so a later refusal by the peer (no memory to read it into) is logged, not reported
     * to this send.
     */
    RdmaOutbound send(Publisher<? extends ByteBuf> messages);

    /** Completes when every send so far completed; fails with the first error. */
    Mono<Void> then();

    /** The registered allocator's Netty view: buffers born here need no copy to send. */
    ByteBufAllocator alloc();
}
