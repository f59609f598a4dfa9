package io.reactorrdma.engine;

import io.reactorrdma.config.EngineConfig;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * What two engines tell each other in the connection's private data (connect and accept), 32
 * bytes, little-endian — within the 56 bytes RDMA CM carries with a connect (docs/PROTOCOL.md):
 * <pre>
 *  0  int    MAGIC 'RRDE'
 *  4  short  VERSION
 *  6  short  0x0102 written little-endian: a byte-order check
 *  8  int    receive-queue depth = the credits the peer starts with
 * 12  int    eager size: the largest payload the peer may SEND into our receive buffers (what we post:
 *               a client's and a server's differ, EngineConfig.clientEagerSize and eagerSize)
 * 16  int    max message size: the largest message we accept (the peer's sends are limited to it)
 * 20  int    socket message window: messages a peer socket may send before we grant more
 * 24  int    capabilities: bit 0 {@link #PULL} — we pull large messages a peer names (RDMA READ)
 *               and name ours for it to pull; the other bits are 0
 * 28  ushort max inbound reads: RDMA READs the peer may have outstanding on our queue pair at once
 *               (our responder resources, max_dest_rd_atomic), 1..255
 * 30  ushort 0 (reserved)
 * </pre>
 * Pull rendezvous is used on a connection only when both sides set {@link #PULL}.
 * MAGIC and VERSION keep their offsets in every version, so a peer of another version is told so
 * by name whatever else changed. A server that refuses a request answers with a {@link #refusal}.
 *
 * @param version             the engine protocol version the sender speaks
 * @param recvDepth           the sender's receive-queue depth
 * @param eagerSize           the sender's eager size
 * @param maxMessageSize      the largest message the sender accepts
 * @param socketMessageWindow the sender's per-socket message window as a receiver
 * @param capabilities        the sender's capability bits ({@link #PULL})
 * @param maxInboundReads     READs the sender lets its peer have outstanding on its queue pair
 */
record ConnectionParameters(short version, int recvDepth, int eagerSize, int maxMessageSize, int socketMessageWindow,
                            int capabilities, int maxInboundReads) {

    static final int MAGIC = 0x52524445;
    /**
     * 1: depth and eager size; 2: also max message size and socket window, and reasoned refusals;
     * 3: socket grants ride on DATA (WireHeader.FLAG_GRANT), and the eager size is the receiver's;
     * 4: also capabilities (pull rendezvous) and the READs a peer may have outstanding;
     * 5: a PULL_REQUEST may carry the message's head inline (WireHeader.PULL_HEAD_MAX).
     */
    static final short VERSION = 5;
    static final int SIZE = 32;
    /** Capability bit: pull rendezvous (RDMA READ of the sender's readable memory). */
    static final int PULL = 1;
    /**
     * RDMA READs an engine keeps outstanding on one queue pair and lets its peer keep: the
     * max_rd_atomic its queue pairs are created with (QpAttributes.withMaxRdAtomic), advertised as
     * what the peer may keep outstanding against us.
     */
    static final int MAX_READS_PER_QP = io.reactorrdma.verbs.QpAttributes.DEFAULT_MAX_RD_ATOMIC;
    /** MAGIC and VERSION: what must parse for a peer to be told about a version mismatch. */
    private static final int PREFIX = 6;
    private static final short BYTE_ORDER = 0x0102;

    /** Refusal reason: the client speaks another protocol version. */
    static final short REFUSED_VERSION = 1;
    /** Refusal reason: the client's parameters did not parse. */
    static final short REFUSED_PARAMETERS = 2;
    /** Bytes of a refusal, within the 148 bytes a reject carries. */
    static final int REFUSAL_SIZE = 12;

    /** Parameters without capabilities (no pull), allowing the default number of READs: for tests and raw peers. */
    ConnectionParameters(short version, int recvDepth, int eagerSize, int maxMessageSize, int socketMessageWindow) {
        this(version, recvDepth, eagerSize, maxMessageSize, socketMessageWindow, 0, MAX_READS_PER_QP);
    }

    /** Ours, from the engine configuration, as the connecting ({@code client}) or the accepting side. */
    static ConnectionParameters of(short version, EngineConfig config, boolean client) {
        return new ConnectionParameters(version, config.recvQueueDepth(), config.eagerSize(client), config.maxMessageSize(),
                config.socketMessageWindow(), config.pullRendezvous() ? PULL : 0, MAX_READS_PER_QP);
    }

    /** Whether the side that sent these parameters pulls (and lets its messages be pulled). */
    boolean pulls() {
        return (capabilities & PULL) != 0;
    }

    ByteBuffer encode() {
        ByteBuffer b = ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).putShort(version).putShort(BYTE_ORDER).putInt(recvDepth).putInt(eagerSize)
                .putInt(maxMessageSize).putInt(socketMessageWindow).putInt(capabilities).putShort((short) maxInboundReads)
                .putShort((short) 0).flip();
        return b;
    }

    /**
     * Parses the peer's parameters.
     *
     * @param who      the peer, for messages
     * @param expected the version we speak
     * @throws ProtocolException naming what is wrong (a version mismatch names both versions)
     */
    static ConnectionParameters decode(ByteBuffer data, String who, short expected) {
        ByteBuffer b = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int n = b.remaining();
        if (n < PREFIX) {
            throw new ProtocolException(who + " sent " + n + " bytes of connection parameters, expected " + SIZE
                    + ": it is not a reactor-rdma engine");
        }
        int magic = b.getInt();
        short version = b.getShort();
        if (magic != MAGIC) {
            throw new ProtocolException(who + " is not a reactor-rdma engine (magic 0x" + Integer.toHexString(magic) + ")");
        }
        if (version != expected) {
            throw new ProtocolException(versionMismatch(who, version, expected));
        }
        if (n < SIZE) {
            throw new ProtocolException(who + " sent " + n + " bytes of version-" + version + " connection parameters, expected " + SIZE);
        }
        short order = b.getShort();
        int depth = b.getInt();
        int eager = b.getInt();
        int maxMessage = b.getInt();
        int window = b.getInt();
        int capabilities = b.getInt();
        int maxReads = Short.toUnsignedInt(b.getShort());
        if (order != BYTE_ORDER) {
            throw new ProtocolException(who + " has another byte order; reactor-rdma links little-endian hosts only");
        }
        if (depth < 1 || depth > 65535 || eager < 0 || maxMessage < 1 || window < 1) {
            throw new ProtocolException(who + " sent impossible parameters: receive depth " + depth + ", eager size " + eager
                    + ", maximum message size " + maxMessage + ", socket message window " + window);
        }
        if ((capabilities & ~PULL) != 0 || maxReads < 1 || maxReads > 255) {
            throw new ProtocolException(who + " sent unknown capability bits 0x" + Integer.toHexString(capabilities & ~PULL)
                    + " or " + maxReads + " inbound READs (1..255)");
        }
        return new ConnectionParameters(version, depth, eager, maxMessage, window, capabilities, maxReads);
    }

    static String versionMismatch(String who, short theirs, short ours) {
        return who + " speaks engine protocol version " + theirs + ", we speak version " + ours
                + ": both ends must run reactor-rdma releases of the same protocol version";
    }

    /**
     * The private data of a reject: why a server refused a request, so the client's error says.
     * <pre>
     *  0  int    MAGIC
     *  4  short  the server's VERSION
     *  6  short  0x0102
     *  8  short  reason: {@link #REFUSED_VERSION} or {@link #REFUSED_PARAMETERS}
     * 10  short  the version the server read from the request (0 if none)
     * </pre>
     */
    static ByteBuffer refusal(short ourVersion, short reason, short theirVersion) {
        ByteBuffer b = ByteBuffer.allocate(REFUSAL_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).putShort(ourVersion).putShort(BYTE_ORDER).putShort(reason).putShort(theirVersion).flip();
        return b;
    }

    /** The version a request names, or 0 when it does not parse that far. */
    static short versionOf(ByteBuffer data) {
        ByteBuffer b = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return b.remaining() >= PREFIX && b.getInt() == MAGIC ? b.getShort() : 0;
    }

    /**
     * Why {@code who} refused our connect, from its reject's private data, for the client's error.
     *
     * @param ours the version we speak
     */
    static String describeRefusal(ByteBuffer data, String who, short ours) {
        ByteBuffer b = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (b.remaining() < REFUSAL_SIZE || b.getInt() != MAGIC) {
            return who + " refused the connection without giving a reason: its listener may be closing or full, or it is a"
                    + " reactor-rdma server of engine protocol version 1, which refuses other versions so (this client speaks version "
                    + ours + ")";
        }
        short serverVersion = b.getShort();
        b.getShort(); // byte order
        short reason = b.getShort();
        if (reason == REFUSED_VERSION) {
            return who + " refused the connection: it speaks engine protocol version " + serverVersion
                    + ", this client speaks version " + ours + "; both ends must run releases of the same protocol version";
        }
        return who + " (engine protocol version " + serverVersion + ") refused the connection: it could not read this client's"
                + " connection parameters (reason " + reason + ")";
    }
}
