package io.reactorrdma.engine;

/**
 * A message of the engine itself, sent before data (a header, and for some types a small body
 * after it; layouts in {@link WireHeader}). Immutable; queued on the I/O thread.
 */
final class ControlMessage {

    /** CREDIT carries nothing of its own (credits go in every header): one instance. */
    static final ControlMessage CREDIT = new ControlMessage(WireHeader.CREDIT, 0, 0, 0, 0, 0);
    /** HEARTBEAT carries nothing of its own: one instance. */
    static final ControlMessage HEARTBEAT = new ControlMessage(WireHeader.HEARTBEAT, 0, 0, 0, 0, 0);

    final byte type;
    final int socket;
    final int length;
    final int token;
    /** RNDV_ANSWER: the destination's address; RNDV_REFUSE: the reason. */
    final long address;
    final int rkey;
    /** RNDV_REFUSE: why, for the sender's error message. */
    final String text;

    ControlMessage(byte type, int socket, int length, int token, long address, int rkey) {
        this(type, socket, length, token, address, rkey, null);
    }

    ControlMessage(byte type, int socket, int length, int token, long address, int rkey, String text) {
        this.type = type;
        this.socket = socket;
        this.length = length;
        this.token = token;
        this.address = address;
        this.rkey = rkey;
        this.text = text;
    }
}
