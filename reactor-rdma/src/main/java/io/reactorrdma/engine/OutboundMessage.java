package io.reactorrdma.engine;

import io.netty.buffer.ByteBuf;

/**
 * A large message on its way by rendezvous: the payload, the token that names it, the
 * destination the peer answered with, and how far the WRITE fragments have got. Lives on the I/O
 * thread.
 */
final class OutboundMessage {

    final EngineSocket socket;
    final ByteBuf payload;
    final int token;
    final int size;
    long remoteAddress;
    int rkey;
    boolean answered;
    /** Bytes already handed to WRITE requests. */
    int offset;
    private boolean released;

    OutboundMessage(EngineSocket socket, ByteBuf payload, int token) {
        this.socket = socket;
        this.payload = payload;
        this.token = token;
        this.size = payload.readableBytes();
    }

    /**
     * Drops the message's own reference to the payload (each posted fragment holds one more, given
     * back when its slot retires). Idempotent.
     */
    void release() {
        if (!released) {
            released = true;
            payload.release();
        }
    }
}
