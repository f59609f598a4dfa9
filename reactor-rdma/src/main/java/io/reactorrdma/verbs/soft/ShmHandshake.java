package io.reactorrdma.verbs.soft;

import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.soft.shared.RegionKeys;
import io.reactorrdma.verbs.soft.shared.ShmDirectory;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * The shm fabric's connection messages, exchanged once over the UNIX-domain socket before the
 * queue pairs talk through shared memory. After them the socket carries only single control
 * bytes ({@link #WAKE}, {@link #HEARTBEAT}, {@link #DISCONNECT}).
 *
 * <pre>
 * frame   = int length (big-endian, of what follows, at most 1024) + body
 * body    = int MAGIC 'RRCM', int VERSION, byte type (CONNECT / ACCEPT / REJECT),
 *           UTF context id, int qpn, int pdId, int rqDepth, int maxRecvSge, int regionTableCapacity,
 *           short privateDataLength, privateData bytes
 * </pre>
 * A REJECT carries only the private data meaningfully (the rest is zero). Every field is checked
 * by the receiver: a context id must look like one (it becomes part of file names), depths and
 * limits must be within the provider's.
 */
final class ShmHandshake {

    static final int MAGIC = 0x5252434D; // 'RRCM'
    static final int VERSION = 1;
    static final byte CONNECT = 1;
    static final byte ACCEPT = 2;
    static final byte REJECT = 3;
    static final int MAX_FRAME = 1024;

    static final byte WAKE = 'W';
    static final byte HEARTBEAT = 'H';
    static final byte DISCONNECT = 'D';

    final byte type;
    final String contextId;
    final int qpn;
    final int pdId;
    final int rqDepth;
    final int maxRecvSge;
    final int regionTableCapacity;
    final ByteBuffer privateData;

    ShmHandshake(byte type, String contextId, int qpn, int pdId, int rqDepth, int maxRecvSge, int regionTableCapacity,
                 ByteBuffer privateData) {
        this.type = type;
        this.contextId = contextId;
        this.qpn = qpn;
        this.pdId = pdId;
        this.rqDepth = rqDepth;
        this.maxRecvSge = maxRecvSge;
        this.regionTableCapacity = regionTableCapacity;
        this.privateData = privateData;
    }

    static ShmHandshake of(byte type, SoftQueuePair qp, ByteBuffer privateData) {
        return new ShmHandshake(type, qp.context.id, qp.qpn, qp.pd.id, qp.rqDepth, qp.attributes().maxRecvSge(),
                qp.context.config.maxRegions(), privateData);
    }

    static ShmHandshake reject(String contextId, ByteBuffer privateData) {
        return new ShmHandshake(REJECT, contextId, 0, 0, 1, 1, 1, privateData);
    }

    ByteBuffer encode() {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(0);
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            out.writeByte(type);
            out.writeUTF(contextId);
            out.writeInt(qpn);
            out.writeInt(pdId);
            out.writeInt(rqDepth);
            out.writeInt(maxRecvSge);
            out.writeInt(regionTableCapacity);
            ByteBuffer pd = privateData.duplicate();
            out.writeShort(pd.remaining());
            byte[] b = new byte[pd.remaining()];
            pd.get(b);
            out.write(b);
            ByteBuffer frame = ByteBuffer.wrap(bytes.toByteArray());
            frame.putInt(0, frame.capacity() - 4);
            return frame;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Parses and checks a frame body; a malformed one is an IOException saying what is wrong. */
    static ShmHandshake decode(byte[] body) throws IOException {
        DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(body));
        int magic = in.readInt();
        int version = in.readInt();
        if (magic != MAGIC || version != VERSION) {
            throw new IOException("not a reactor-rdma shm handshake (magic 0x" + Integer.toHexString(magic) + ", version " + version + ")");
        }
        byte type = in.readByte();
        if (type != CONNECT && type != ACCEPT && type != REJECT) {
            throw new IOException("unknown handshake type " + type);
        }
        String id = in.readUTF();
        if (!ShmDirectory.CONTEXT_ID.matcher(id).matches()) {
            throw new IOException("malformed context id in handshake");
        }
        int qpn = in.readInt();
        int pdId = in.readInt();
        int rqDepth = in.readInt();
        int maxRecvSge = in.readInt();
        int tableCapacity = in.readInt();
        if (rqDepth < 1 || rqDepth > SoftLimits.MAX_QP_WR || maxRecvSge < 1 || maxRecvSge > SoftLimits.MAX_SGE
                || tableCapacity < 1 || tableCapacity > RegionKeys.MAX_INDEX) {
            throw new IOException("handshake limits out of range (rqDepth " + rqDepth + ", maxRecvSge " + maxRecvSge
                    + ", regions " + tableCapacity + ")");
        }
        int pdLen = in.readUnsignedShort();
        if (pdLen > SoftLimits.MAX_ACCEPT_PRIVATE_DATA) {
            throw new IOException("handshake private data of " + pdLen + " bytes exceeds " + SoftLimits.MAX_ACCEPT_PRIVATE_DATA);
        }
        byte[] pd = new byte[pdLen];
        in.readFully(pd);
        return new ShmHandshake(type, id, qpn, pdId, rqDepth, maxRecvSge, tableCapacity, ByteBuffer.wrap(pd).asReadOnlyBuffer());
    }

    /** Writes a whole frame on a non-blocking channel, waiting at most until {@code deadlineNanos}. */
    static void write(SocketChannel ch, ByteBuffer frame, long deadlineNanos) throws IOException {
        while (frame.hasRemaining()) {
            if (ch.write(frame) == 0) {
                if (System.nanoTime() - deadlineNanos > 0) {
                    throw new IOException("timed out writing the handshake");
                }
                Thread.onSpinWait();
            }
        }
    }

    /** Reads one frame from a non-blocking channel, waiting at most until {@code deadlineNanos}. */
    static ShmHandshake read(SocketChannel ch, long deadlineNanos) throws IOException {
        ByteBuffer len = ByteBuffer.allocate(4);
        fill(ch, len, deadlineNanos);
        int n = len.getInt(0);
        if (n < 1 || n > MAX_FRAME) {
            throw new IOException("handshake frame length " + n + " out of range");
        }
        ByteBuffer body = ByteBuffer.allocate(n);
        fill(ch, body, deadlineNanos);
        return decode(body.array());
    }

    private static void fill(SocketChannel ch, ByteBuffer b, long deadlineNanos) throws IOException {
        try (Selector selector = Selector.open()) {
            ch.register(selector, SelectionKey.OP_READ);
            while (b.hasRemaining()) {
                int r = ch.read(b);
                if (r < 0) {
                    throw new IOException("the peer closed the socket during the handshake");
                }
                if (r == 0) {
                    long left = deadlineNanos - System.nanoTime();
                    if (left <= 0) {
                        throw new VerbsException("timed out waiting for the handshake");
                    }
                    selector.select(Math.max(1, left / 1_000_000));
                    selector.selectedKeys().clear();
                }
            }
        }
    }
}
