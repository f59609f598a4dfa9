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
    /** The socket's ordinal of the message (taken from its queue just before this was made). */
    final long ordinal;
    long remoteAddress;
    int rkey;
    boolean answered;
    /** Its socket ended before the peer answered: the answer or refusal still due is dropped. */
    boolean abandoned;
    /** Bytes already handed to WRITE requests. */
    int offset;
    private boolean released;

    OutboundMessage(EngineSocket socket, ByteBuf payload, int token) {
        this.socket = socket;
        this.payload = payload;
        this.token = token;
        this.size = payload.readableBytes();
        this.ordinal = socket.lastTaken();
    }

    /** A direct write: the destination is known, no answer to wait for. */
    static OutboundMessage direct(EngineSocket socket, ByteBuf payload, long remoteAddress, int rkey) {
        OutboundMessage m = new OutboundMessage(socket, payload, DirectWrite.IMM_FLAG | socket.id);
        m.remoteAddress = remoteAddress;
        m.rkey = rkey;
        m.answered = true;
        return m;
    }

    boolean isDirect() {
        return (token & DirectWrite.IMM_FLAG) != 0;
    }

    /** Hands the message's own reference to the payload to the caller (nothing left to release here). */
    ByteBuf takePayload() {
        if (released) {
            throw new IllegalStateException("the payload of message " + token + " was already released");
        }
        released = true;
        return payload;
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
