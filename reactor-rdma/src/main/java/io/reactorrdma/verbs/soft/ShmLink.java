package io.reactorrdma.verbs.soft;

import io.reactorrdma.verbs.VerbsException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * A link to a queue pair in another process: the peer's queue-pair file and region table are
 * mapped here, its regions are mapped on first use (and checked against its region table on every
 * use), and the UNIX-domain socket carries wake-ups, heartbeats and the disconnect.
 */
final class ShmLink extends PeerLink {

    private final ShmFabric fabric;
    final SocketChannel channel;
    private final String peerId;
    private final ByteBuffer peerTable;
    private final int peerTableCapacity;
    private final MappedRegion[] mapped;
    private final ByteBuffer wakeByte = ByteBuffer.allocateDirect(1);
    private final ByteBuffer controlByte = ByteBuffer.allocateDirect(1);
    volatile long lastHeardNanos = System.nanoTime();
    private long lastSentNanos = System.nanoTime();
    private volatile String socketFailure;

    /** A peer region mapped into this process. */
    private static final class MappedRegion {
        final int key;
        final MappedByteBuffer memory;

        MappedRegion(int key, MappedByteBuffer memory) {
            this.key = key;
            this.memory = memory;
        }
    }

    private ShmLink(ShmFabric fabric, SoftQueuePair qp, SocketChannel channel, ShmHandshake peer, ByteBuffer peerQp, ByteBuffer peerTable) {
        super(qp, "shm context " + peer.contextId + " qp " + peer.qpn, peerQp, peer.rqDepth, peer.maxRecvSge, peer.pdId);
        this.fabric = fabric;
        this.channel = channel;
        this.peerId = peer.contextId;
        this.peerTable = peerTable;
        this.peerTableCapacity = peer.regionTableCapacity;
        this.mapped = new MappedRegion[peer.regionTableCapacity];
        wakeByte.put(0, ShmHandshake.WAKE);
    }

    /** Maps the peer's structures named in its handshake and checks that they match it. */
    static ShmLink open(ShmFabric fabric, SoftQueuePair qp, SocketChannel channel, ShmHandshake peer) throws IOException {
        ShmDirectory dir = fabric.directory();
        ByteBuffer peerQp = SharedMemory.mapExisting(dir.file(peer.contextId, "qp" + peer.qpn),
                QpLayout.sharedSize(peer.rqDepth, peer.maxRecvSge));
        if (SharedMemory.getIntAcquire(peerQp, QpLayout.H_MAGIC) != QpLayout.MAGIC
                || peerQp.getInt(QpLayout.H_QPN) != peer.qpn
                || peerQp.getInt(QpLayout.H_RQ_DEPTH) != peer.rqDepth
                || peerQp.getInt(QpLayout.H_MAX_RECV_SGE) != peer.maxRecvSge) {
            throw new IOException("the queue-pair file of " + peer.contextId + " qp " + peer.qpn + " does not match its handshake");
        }
        ByteBuffer table = SharedMemory.mapExisting(dir.file(peer.contextId, "regions"), RegionTableLayout.size(peer.regionTableCapacity));
        return new ShmLink(fabric, qp, channel, peer, peerQp, table);
    }

    @Override
    ByteBuffer resolve(int key, int requiredAccess, long address, long length) {
        int index = RegionKeys.index(key);
        if (index >= peerTableCapacity) {
            resolveError = "key 0x" + Integer.toHexString(key) + ", beyond the region table of " + peerName;
            return null;
        }
        int e = RegionTableLayout.entryOffset(index);
        if (SharedMemory.getLongAcquire(peerTable, e + RegionTableLayout.E_KEY_AND_STATE) != RegionTableLayout.validWord(key)) {
            resolveError = "key 0x" + Integer.toHexString(key) + ", which names no registered region of " + peerName;
            return null;
        }
        int access = peerTable.getInt(e + RegionTableLayout.E_ACCESS);
        int pd = peerTable.getInt(e + RegionTableLayout.E_PD);
        int regionLength = peerTable.getInt(e + RegionTableLayout.E_LENGTH);
        if (regionLength <= 0 || regionLength > SoftConfig.MAX_REGION_SIZE) {
            resolveError = "key 0x" + Integer.toHexString(key) + ", whose region-table entry at " + peerName
                    + " is malformed (length " + regionLength + ")";
            return null;
        }
        MappedRegion m = mapped[index];
        if (m == null || m.key != key || m.memory.capacity() < regionLength) {
            Path f = fabric.directory().file(peerId, "r" + Integer.toHexString(key));
            try {
                m = new MappedRegion(key, SharedMemory.mapExisting(f, regionLength));
            } catch (IOException ex) {
                resolveError = "key 0x" + Integer.toHexString(key) + " of " + peerName + ", whose memory cannot be mapped: " + ex.getMessage();
                return null;
            }
            mapped[index] = m;
        }
        long base = peerTable.getLong(e + RegionTableLayout.E_ADDRESS);
        return check(m.memory, base, regionLength, access, pd, key, requiredAccess, address, length);
    }

    @Override
    void wakePeer() {
        send(wakeByte);
    }

    @Override
    void sendDisconnect() {
        synchronized (controlByte) {
            controlByte.put(0, ShmHandshake.DISCONNECT);
            send(controlByte);
        }
    }

    private void send(ByteBuffer oneByte) {
        oneByte.clear();
        try {
            channel.write(oneByte); // non-blocking; a full socket buffer already holds a wake-up for the peer
        } catch (IOException e) {
            socketFailure = peerName + ": its socket failed (" + e.getMessage() + "); the process has most likely exited";
            fabric.wakeProviderThread();
        }
    }

    /** Provider thread: a control byte arrived. */
    void onControl(byte b) {
        lastHeardNanos = System.nanoTime();
        switch (b) {
            case ShmHandshake.WAKE:
                qp.recvCq().notifyEvent();
                break;
            case ShmHandshake.HEARTBEAT:
                break;
            case ShmHandshake.DISCONNECT:
                SoftConnection c = connection;
                if (c != null) {
                    c.peerDisconnected();
                }
                break;
            default:
                socketFailure = peerName + " sent control byte " + (b & 0xFF) + ", which is not part of the protocol";
        }
    }

    /** Provider thread: the socket reached end of stream or failed. */
    void onSocketClosed(String why) {
        socketFailure = peerName + " closed its socket (" + why + "): the process exited or was killed";
    }

    @Override
    String checkPeer(long nowNanos) {
        String failure = socketFailure;
        if (failure != null) {
            return failure;
        }
        if (nowNanos - lastSentNanos >= qp.context.config.heartbeatInterval().toNanos()) {
            lastSentNanos = nowNanos;
            synchronized (controlByte) {
                controlByte.put(0, ShmHandshake.HEARTBEAT);
                send(controlByte);
            }
        }
        long silentNanos = nowNanos - lastHeardNanos;
        if (silentNanos > qp.context.config.peerTimeout().toNanos()) {
            return peerName + " sent nothing for " + silentNanos / 1_000_000 + " ms (peer timeout "
                    + qp.context.config.peerTimeout().toMillis() + " ms): it hangs or is gone";
        }
        return null;
    }

    @Override
    void close() {
        fabric.unregister(this);
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    static VerbsException mappingFailed(String who, IOException e) {
        return new VerbsException("cannot map the shared structures of " + who + ": " + e.getMessage(), e);
    }
}
