package io.reactorrdma.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * What two engines tell each other in the connection's private data (connect and accept), 16
 * bytes, little-endian — within the 56 bytes RDMA CM carries with a connect:
 * <pre>
 *  0  int    MAGIC 'RRDE'
 *  4  short  VERSION
 *  6  short  0x0102 written little-endian: a byte-order check
 *  8  int    receive-queue depth = the credits the peer starts with
 * 12  int    eager size: the largest payload the sender may SEND into our receive buffers
 * </pre>
 */
record ConnectionParameters(int recvDepth, int eagerSize) {

    static final int MAGIC = 0x52524445;
    static final short VERSION = 1;
    static final int SIZE = 16;

    ByteBuffer encode() {
        ByteBuffer b = ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).putShort(VERSION).putShort((short) 0x0102).putInt(recvDepth).putInt(eagerSize).flip();
        return b;
    }

    static ConnectionParameters decode(ByteBuffer data, String who) {
        ByteBuffer b = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (b.remaining() < SIZE) {
            throw new ProtocolException(who + " sent " + b.remaining() + " bytes of connection parameters, expected " + SIZE
                    + ": it is not a reactor-rdma engine");
        }
        int magic = b.getInt();
        short version = b.getShort();
        short order = b.getShort();
        int depth = b.getInt();
        int eager = b.getInt();
        if (magic != MAGIC) {
            throw new ProtocolException(who + " is not a reactor-rdma engine (magic 0x" + Integer.toHexString(magic) + ")");
        }
        if (version != VERSION) {
            throw new ProtocolException(who + " speaks engine protocol version " + version + ", we speak " + VERSION);
        }
        if (order != 0x0102) {
            throw new ProtocolException(who + " has another byte order; reactor-rdma links little-endian hosts only");
        }
        if (depth < 1 || depth > 65535 || eager < 0) {
            throw new ProtocolException(who + " sent impossible parameters: receive depth " + depth + ", eager size " + eager);
        }
        return new ConnectionParameters(depth, eager);
    }
}
