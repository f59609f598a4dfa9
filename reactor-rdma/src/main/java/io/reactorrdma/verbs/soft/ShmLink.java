package io.reactorrdma.verbs.soft;

import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.soft.shared.QpLayout;
import io.reactorrdma.verbs.soft.shared.RegionKeys;
import io.reactorrdma.verbs.soft.shared.RegionTableLayout;
import io.reactorrdma.verbs.soft.shared.SharedMemory;
import io.reactorrdma.verbs.soft.shared.ShmDirectory;
import io.reactorrdma.verbs.soft.shared.WakeSocket;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * A link to a queue pair in another process: the peer's queue-pair file and region table are
 * mapped here, its regions are mapped on first use (and checked against its region table on every
 * use), and the UNIX-domain socket carries heartbeats and the disconnect. Wake-ups go on a second
 * connection, to the {@link WakeSocket} of the peer's receive completion queue, so that the peer's
 * blocked poller is woken by the kernel directly; when the peer has none (or it failed), on the
 * control socket, for the peer's provider thread to relay.
 *
 * <p>A mapping keeps the pages of the peer's region alive after the peer deregistered and unlinked
 * it, so mappings of deregistered regions are unmapped: every time a region is newly mapped (a
 * lookup miss — a new region of the peer, so possibly others went), the next request first checks
 * every cached mapping against the peer's region table and unmaps the stale ones. Only the thread
 * running the send queue uses these mappings, and it does this between requests, when none is in
 * use. Stale mappings are thus bounded by the regions the peer dropped since our last miss.
 */
final class ShmLink extends PeerLink {

    private final ShmFabric fabric;
    final SocketChannel channel;
    /**
     * To the wake socket of the peer's receive completion queue, or null (wake-ups then go on
     * {@link #channel}). Used by whoever runs the send queue; dropped once a write fails.
     */
    private SocketChannel wakeChannel;
    private final String peerId;
    private final ByteBuffer peerTable;
    private final int peerTableCapacity;
    private final MappedRegion[] mapped;
    /** Table indexes of {@link #mapped} entries that are set, {@link #cachedCount} of them. */
    private final int[] cachedIndexes;
    private int cachedCount;
    /** Mappings replaced during the current request, unmapped before the next one. */
    private final MappedByteBuffer[] replaced = new MappedByteBuffer[SoftLimits.MAX_SGE];
    private int replacedCount;
    /** A region was newly mapped: check the cache against the peer's table before the next request. */
    private boolean sweepDue;
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

    private ShmLink(ShmFabric fabric, SoftQueuePair qp, SocketChannel channel, ShmHandshake peer, ByteBuffer peerQp, ByteBuffer peerTable,
                    SocketChannel wakeChannel) {
        super(qp, "shm context " + peer.contextId + " qp " + peer.qpn, peerQp, peer.rqDepth, peer.maxRecvSge, peer.pdId);
        this.fabric = fabric;
        this.channel = channel;
        this.peerId = peer.contextId;
        this.peerTable = peerTable;
        this.peerTableCapacity = peer.regionTableCapacity;
        this.mapped = new MappedRegion[peer.regionTableCapacity];
        this.cachedIndexes = new int[peer.regionTableCapacity];
        this.wakeChannel = wakeChannel;
        wakeByte.put(0, ShmHandshake.WAKE);
    }

    /** Maps the peer's structures named in its handshake and checks that they match it. */
    static ShmLink open(ShmFabric fabric, SoftQueuePair qp, SocketChannel channel, ShmHandshake peer) throws IOException {
        ShmDirectory dir = fabric.directory();
        ByteBuffer peerQp = SharedMemory.mapExisting(dir.file(peer.contextId, "qp" + peer.qpn),
                QpLayout.sharedSize(peer.rqDepth, peer.maxRecvSge));
        int magic = SharedMemory.getIntAcquire(peerQp, QpLayout.H_MAGIC);
        int version = peerQp.getInt(QpLayout.H_VERSION);
        if (magic == QpLayout.MAGIC && version != QpLayout.VERSION) {
            throw new IOException(peer.contextId + " lays out its shared queues as version " + version + " of the shm provider, "
                    + "this process as " + QpLayout.VERSION + ": the two ends run different reactor-rdma releases; "
                    + "run the same release on both");
        }
        if (magic != QpLayout.MAGIC
                || peerQp.getInt(QpLayout.H_QPN) != peer.qpn
                || peerQp.getInt(QpLayout.H_RQ_DEPTH) != peer.rqDepth
                || peerQp.getInt(QpLayout.H_MAX_RECV_SGE) != peer.maxRecvSge) {
            throw new IOException("the queue-pair file of " + peer.contextId + " qp " + peer.qpn + " does not match its handshake");
        }
        ByteBuffer table = SharedMemory.mapExisting(dir.file(peer.contextId, "regions"), RegionTableLayout.size(peer.regionTableCapacity));
        int wakeCq = peerQp.getInt(QpLayout.H_WAKE_CQ); // the peer's word: only a number, looked up in its own directory
        SocketChannel wake = wakeCq > 0 ? WakeSocket.connect(fabric.wakeSocketPath(peer.contextId, wakeCq)) : null;
        return new ShmLink(fabric, qp, channel, peer, peerQp, table, wake);
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
        if (regionLength <= 0 || regionLength > SoftLimits.MAX_REGION_SIZE) {
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
                resolveError = "key 0x" + Integer.toHexString(key) + " of " + peerName
                        + ", whose memory cannot be mapped: " + ex.getMessage();
                return null;
            }
            MappedRegion old = mapped[index];
            if (old == null) {
                cachedIndexes[cachedCount++] = index;
            } else if (replacedCount < replaced.length) {
                replaced[replacedCount++] = old.memory; // an earlier entry of this request may still use it
            }
            mapped[index] = m;
            sweepDue = true;
        }
        long base = peerTable.getLong(e + RegionTableLayout.E_ADDRESS);
        return check(m.memory, base, regionLength, access, pd, key, requiredAccess, address, length);
    }

    @Override
    void beforeRequest() {
        if (replacedCount > 0) {
            for (int i = 0; i < replacedCount; i++) {
                SharedMemory.unmap(replaced[i]);
                replaced[i] = null;
            }
            replacedCount = 0;
        }
        if (sweepDue) {
            sweepDue = false;
            unmapStale();
        }
    }

    /** Unmaps cached mappings whose region the peer's table no longer holds under the same key. */
    private void unmapStale() {
        int n = cachedCount;
        for (int i = 0; i < n; ) {
            int index = cachedIndexes[i];
            MappedRegion m = mapped[index];
            long word = SharedMemory.getLongAcquire(peerTable, RegionTableLayout.entryOffset(index) + RegionTableLayout.E_KEY_AND_STATE);
            if (word != RegionTableLayout.validWord(m.key)) {
                mapped[index] = null;
                SharedMemory.unmap(m.memory);
                cachedIndexes[i] = cachedIndexes[--n];
            } else {
                i++;
            }
        }
        cachedCount = n;
    }

    @Override
    void wakePeer() {
        SocketChannel w = wakeChannel;
        if (w != null) {
            wakeByte.clear();
            try {
                w.write(wakeByte); // non-blocking; a full socket buffer already holds a wake-up for the peer
                return;
            } catch (IOException e) {
                wakeChannel = null; // the peer's queue closed it: the control socket says whether the peer is gone
                closeQuietly(w);
            }
        }
        send(wakeByte);
    }

    /** Whether wake-ups go to the peer's wake socket (tests). */
    boolean wakesDirectly() {
        return wakeChannel != null;
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
                fabric.countRelayedWakeup();
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
        // Mappings are not unmapped here: a send-queue run on another thread may still be inside
        // a copy. They go with this link, when the GC finds it unreachable.
        closeQuietly(channel);
        closeQuietly(wakeChannel); // a send-queue run writing to it meanwhile falls back to the closed control socket
    }

    private static void closeQuietly(SocketChannel c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    static VerbsException mappingFailed(String who, IOException e) {
        return new VerbsException("cannot map the shared structures of " + who + ": " + e.getMessage(), e);
    }
}
