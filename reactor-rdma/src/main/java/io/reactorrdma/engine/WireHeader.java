package io.reactorrdma.engine;

import io.netty.buffer.ByteBuf;

/**
 * The engine's wire protocol: every SEND starts with this 16-byte header (little-endian, as the
 * host writes it; both ends of a soft or RoCE link in this project are little-endian machines,
 * and the connection's private data carries a byte-order check).
 *
 * <pre>
 *  0  byte   type       DATA, RNDV_REQUEST, RNDV_ANSWER, CREDIT, SOCKET_OPEN, SOCKET_CLOSE,
 *                       SOCKET_CREDIT, HEARTBEAT, CLOSE, RNDV_REFUSE, RNDV_ABANDON, RNDV_REVOKE,
 *                       PULL_REQUEST, PULL_DONE
 *  1  byte   flags      {@link #FLAG_GRANT} on DATA, else 0 (anything else is a protocol error)
 *  2  ushort credits    receive credits returned to the peer (piggybacked on any message)
 *  4  int    socket     socket id (0 for engine-level messages)
 *  8  int    length     DATA: payload bytes that follow; RNDV_REQUEST / RNDV_ANSWER / RNDV_REFUSE /
 *                       RNDV_REVOKE / PULL_REQUEST: message size; RNDV_ABANDON: 0;
 *                       PULL_DONE: the number of tokens that follow;
 *                       SOCKET_CREDIT: messages granted; SOCKET_CLOSE: 0 (normal) or 1 (error)
 * 12  int    token      RNDV_* and PULL_REQUEST: the message's token (for RNDV_*, also the
 *                       immediate data of its final WRITE_WITH_IMM); PULL_DONE: 0;
 *                       DATA with FLAG_GRANT: messages granted on its socket
 *                       (a SOCKET_CREDIT riding on data that goes anyway)
 * 16  ...    DATA: payload; RNDV_ANSWER: long address, int rkey (the destination);
 *            PULL_REQUEST: long address, int rkey (the source: readable memory of the sender),
 *            then the message's first bytes when they travel inline (its head, at most
 *            {@link #PULL_HEAD_MAX}: the received length less {@link #PULL_REQUEST_SIZE});
 *            the source then holds the bytes after the head;
 *            RNDV_REFUSE: the refusal body below; PULL_DONE: n ints, the tokens released
 * </pre>
 * Pull rendezvous (both sides offered it at connect): PULL_REQUEST (sender to receiver,
 * solicited) names a message the receiver READs from the sender's memory into its own, in
 * fragments, and delivers in the socket's order once the last READ completed. It takes one
 * message of the socket's allowance, as DATA does. The receiver answers every PULL_REQUEST
 * exactly once: a token in a PULL_DONE (unsolicited, batched: the source may be released, no
 * READ of it follows), or RNDV_REFUSE with {@link #REFUSED_NO_MEMORY} (nothing was read; the
 * sender's message fails with {@link MessageRefusedException}). A receiver whose socket ended
 * (closed with an error by either side) stops reading its messages and lists their tokens in a
 * PULL_DONE once their READs already posted completed; a graceful SOCKET_CLOSE takes effect
 * after the messages pulled before it are delivered.
 * The receiver answers every RNDV_REQUEST exactly once: RNDV_ANSWER, or RNDV_REFUSE when it will
 * not take the message (the sender's message then fails with {@link MessageRefusedException}; the
 * socket and the connection go on). RNDV_REFUSE's body, after the header:
 * <pre>
 * 16  int    reason     {@link #REFUSED_NO_MEMORY}: the destination could not be allocated;
 *                       {@link #REFUSED_ABANDONED}: the sender abandoned the token before it was answered
 * 20  ushort text bytes n (0 .. {@link #MAX_REFUSE_TEXT}, and within the peer's eager size)
 * 22  n      UTF-8 text: the receiver's error, for the sender's message
 * </pre>
 * RNDV_ABANDON (sender to receiver, header only): no WRITE of this token follows on the queue
 * pair (RC keeps the order: the fragments posted before it have landed), so the receiver frees
 * the destination, or refuses the request with {@link #REFUSED_ABANDONED} if it was still
 * waiting for room; an unknown token is ignored (the abandon crossed the receiver's reply).
 * The sender sends it when its socket ends with the message in progress, and in reply to
 * RNDV_REVOKE (receiver to sender, header only): the destination's data did not come within
 * the write timeout; the sender fails the message unless its last fragment is already posted,
 * and answers RNDV_ABANDON. Until that answer the receiver keeps the revoked destination out of
 * reuse (late WRITEs land in memory nobody reads); a peer that does not answer within another
 * timeout is failed.
 * A WRITE_WITH_IMM completion carries no header: its immediate data is the token of a
 * rendezvous message the receiver answered. Anything that does not parse — unknown type, flags,
 * a length that disagrees with the byte count, an unknown token or socket where one is required —
 * is a protocol error that closes that engine only.
 */
final class WireHeader {

    static final int SIZE = 16;
    static final int RNDV_ANSWER_SIZE = SIZE + 12;
    /**
     * PULL_REQUEST: the header, the source's address and rkey (the offsets of RNDV_ANSWER's); the
     * message's first bytes may follow inline (its head: the received length less this).
     */
    static final int PULL_REQUEST_SIZE = SIZE + 12;
    /**
     * Most bytes of a message a PULL_REQUEST carries inline: room for RSocket's frame header and
     * metadata (typically tens of bytes), whose pieces lie apart from the data that is pulled. A
     * message with a larger head goes by copy or by the WRITE rendezvous.
     */
    static final int PULL_HEAD_MAX = 1024;
    /** Bytes per token of a PULL_DONE. */
    static final int PULL_DONE_TOKEN = 4;
    /** RNDV_REFUSE without its text. */
    static final int RNDV_REFUSE_SIZE = SIZE + 6;
    /** Most UTF-8 bytes of a refusal's text. */
    static final int MAX_REFUSE_TEXT = 200;

    static final byte DATA = 1;
    static final byte RNDV_REQUEST = 2;
    static final byte RNDV_ANSWER = 3;
    static final byte CREDIT = 4;
    static final byte SOCKET_OPEN = 5;
    static final byte SOCKET_CLOSE = 6;
    static final byte SOCKET_CREDIT = 7;
    static final byte HEARTBEAT = 8;
    static final byte CLOSE = 9;
    static final byte RNDV_REFUSE = 10;
    static final byte RNDV_ABANDON = 11;
    static final byte RNDV_REVOKE = 12;
    static final byte PULL_REQUEST = 13;
    static final byte PULL_DONE = 14;

    /** DATA flag: the token field grants the peer's socket that many more messages, as SOCKET_CREDIT would. */
    static final int FLAG_GRANT = 1;

    /** RNDV_REFUSE reason: the receiver could not allocate the destination. */
    static final int REFUSED_NO_MEMORY = 1;
    /** RNDV_REFUSE reason: the sender abandoned the token while the request waited for room. */
    static final int REFUSED_ABANDONED = 2;

    static final int OFF_TYPE = 0;
    static final int OFF_FLAGS = 1;
    static final int OFF_CREDITS = 2;
    static final int OFF_SOCKET = 4;
    static final int OFF_LENGTH = 8;
    static final int OFF_TOKEN = 12;
    static final int OFF_ADDRESS = 16;
    static final int OFF_RKEY = 24;
    static final int OFF_REFUSE_REASON = 16;
    static final int OFF_REFUSE_TEXT_LENGTH = 20;
    static final int OFF_REFUSE_TEXT = 22;

    /** Most credits one header can return. */
    static final int MAX_CREDITS = 0xFFFF;

    private WireHeader() {
    }

    /** Writes a header at {@code index} of {@code buf} (absolute; indices unchanged). */
    static void write(ByteBuf buf, int index, byte type, int credits, int socket, int length, int token) {
        write(buf, index, type, 0, credits, socket, length, token);
    }

    /** Writes a header with {@code flags} at {@code index} of {@code buf} (absolute; indices unchanged). */
    static void write(ByteBuf buf, int index, byte type, int flags, int credits, int socket, int length, int token) {
        buf.setByte(index + OFF_TYPE, type);
        buf.setByte(index + OFF_FLAGS, flags);
        buf.setShortLE(index + OFF_CREDITS, credits);
        buf.setIntLE(index + OFF_SOCKET, socket);
        buf.setIntLE(index + OFF_LENGTH, length);
        buf.setIntLE(index + OFF_TOKEN, token);
    }

    static byte type(ByteBuf buf, int index) {
        return buf.getByte(index + OFF_TYPE);
    }

    static int flags(ByteBuf buf, int index) {
        return buf.getUnsignedByte(index + OFF_FLAGS);
    }

    static int credits(ByteBuf buf, int index) {
        return buf.getUnsignedShortLE(index + OFF_CREDITS);
    }

    static int socket(ByteBuf buf, int index) {
        return buf.getIntLE(index + OFF_SOCKET);
    }

    static int length(ByteBuf buf, int index) {
        return buf.getIntLE(index + OFF_LENGTH);
    }

    static int token(ByteBuf buf, int index) {
        return buf.getIntLE(index + OFF_TOKEN);
    }

    static String typeName(byte type) {
        switch (type) {
            case DATA: return "DATA";
            case RNDV_REQUEST: return "RNDV_REQUEST";
            case RNDV_ANSWER: return "RNDV_ANSWER";
            case CREDIT: return "CREDIT";
            case SOCKET_OPEN: return "SOCKET_OPEN";
            case SOCKET_CLOSE: return "SOCKET_CLOSE";
            case SOCKET_CREDIT: return "SOCKET_CREDIT";
            case HEARTBEAT: return "HEARTBEAT";
            case CLOSE: return "CLOSE";
            case RNDV_REFUSE: return "RNDV_REFUSE";
            case RNDV_ABANDON: return "RNDV_ABANDON";
            case RNDV_REVOKE: return "RNDV_REVOKE";
            case PULL_REQUEST: return "PULL_REQUEST";
            case PULL_DONE: return "PULL_DONE";
            default: return "unknown type " + type;
        }
    }
}
