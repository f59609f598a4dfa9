package io.reactorrdma.engine;

import io.netty.buffer.ByteBuf;

/**
 * A message written straight into a remote buffer the sender already knows (paper §5.3.2: a
 * statically allocated tensor): no rendezvous round trip. The engine WRITEs the payload in
 * fragments to {@code remoteAddress}, the last with WRITE_WITH_IMM so the receiving socket learns
 * it arrived ({@link EngineSocket.Inbound#onRemoteWrite}).
 *
 * @param payload       what to write; ownership passes to the engine
 * @param remoteAddress where, in the peer's address space
 * @param rkey          the peer region's key (the peer grants it out of band, e.g. in a message)
 */
public record DirectWrite(ByteBuf payload, long remoteAddress, int rkey) {

    /** The immediate data of a direct write's last fragment: the top bit, and the socket id. */
    static final int IMM_FLAG = 0x8000_0000;
}
