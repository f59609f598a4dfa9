package io.reactorrdma.engine;

import io.reactorrdma.config.EngineConfig;
import io.netty.buffer.ByteBuf;
import io.netty.util.collection.IntObjectHashMap;
import io.reactorrdma.backpressure.ByteWindow;
import io.reactorrdma.backpressure.CreditCounter;
import io.reactorrdma.memory.RegisteredAllocator;
import io.reactorrdma.memory.RegisteredByteBufAllocator;
import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.QpState;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.work.RecvWr;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.work.WcOpcode;
import io.reactorrdma.verbs.work.WcStatus;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * An engine: one RC queue pair to one peer and everything that rides on it (paper §5.3–§6)
 * — the work-request chain, receive buffers and receive credits, eager and
 * rendezvous messages, the send window, and the sockets multiplexed on it. Every method but
 * {@link #socketReady} runs on its thread domain's I/O thread, so nothing here locks.
 *
 * <p>Send path, per scheduling turn: control messages first (rendezvous answers, socket and
 * credit messages), then the sockets with work, round-robin, each preparing at most one
 * fragment; then one post call for everything prepared. A message up to the peer's eager size is
 * one SEND of a header and the payload (two scatter/gather entries, no copy when the payload is
 * registered memory); a larger one asks the peer for a destination (RNDV_REQUEST), then WRITEs
 * fragments into it, the last with WRITE_WITH_IMM naming the message ({@link Rendezvous}) — or,
 * when both sides offered pull and the payload lies in this engine's readable pool, is named to
 * the peer (PULL_REQUEST), which READs it ({@link Pull}); this engine then posts the READ
 * fragments of the peer's messages it pulls, within its window, its domain's pull budget and the
 * queue pair's READ limit.
 */
public final class Engine {

    /** Credits kept for control messages, so that credit returns can never be starved. */
    static final int RESERVED_CONTROL_CREDITS = 1;
    /**
     * Messages up to this many bytes are copied out of their receive buffer, which is posted again as
     * it is; larger ones are handed over in it (zero copy) and a new buffer is posted in its place.
     * Copying a few cache lines costs less than taking a receive-sized buffer from the allocator and
     * giving it back later (a client's 64 KiB receive buffers are page runs), and the application
     * then holds a buffer of the message's size, not of the receive size. The buffer is made ready
     * behind the doorbell of the turn before ({@link CopyOutBuffer}), not allocated on the message's way.
     */
    static final int COPY_OUT_LIMIT = 512;
    /** How long a closing socket may take to send what it has queued before the rest is dropped. */
    static final long CLOSE_DRAIN_NANOS = 10_000_000_000L;
    private static final int HEADER_SLOT = 32;
    /** Tokens a PULL_DONE carries in its header slot, after the header. */
    private static final int INLINE_NOTICE_TOKENS = (HEADER_SLOT - WireHeader.SIZE) / WireHeader.PULL_DONE_TOKEN;
    /** The wr id of the receive a draining engine posts to learn, from its flush, that the peer stopped copying. */
    static final long DRAIN_WR_ID = Long.MAX_VALUE;
    private static final Logger LOG = Loggers.getLogger(Engine.class);
    final ThreadDomain domain;
    final EngineConfig config;
    private final CmConnection connection;
    private final QueuePair qp;
    private final String peerName;
    private final RegisteredAllocator memory;
    private final RegisteredByteBufAllocator destinations;
    private final WorkRequestChain chain;
    private final ByteBuf headerArea;
    private final long headerAddress;
    private final int headerLkey;
    private final boolean client;
    private final Consumer<EngineSocket> acceptor;
    private final EngineMetrics metrics;

    // receive side
    private final int recvDepth;
    /** What each posted receive buffer holds: a header and this side's eager size (a client's or a server's). */
    private final int recvBufferSize;
    /**
     * Consumed receives are posted again this many at a time (d/8), after the turn's doorbell: posting a
     * receive writes what the peer reads to claim it, so on the soft provider each one takes a cache line
     * from the peer's core, and a batch in front of a message delayed it (32 of them: a microsecond).
     */
    private final int repostBatch;
    /** Credits owed to the peer go alone, in a CREDIT, once this many (d/2) wait and nothing else carries them. */
    private final int creditReturnBatch;
    /** The buffer each receive slot has posted; null while the slot is not posted. */
    private final ByteBuf[] recvBufs;
    /**
     * A completed slot's buffer kept to be posted again, or null: what a receive did not hand to the
     * application (a control message, or a small message copied out) goes back to the queue pair as it
     * is, instead of to the allocator and a new one from it.
     */
    private final ByteBuf[] recvKept;
    private final RecvWr[] recvBatch;
    private final int[] toRepost;
    private int toRepostCount;
    private int creditsToReturn;

    // send side
    private final int peerDepth;
    /** The largest message we SEND: what the peer's receive buffers take, capped by {@link EngineConfig#eagerSendLimit}. */
    private final int peerEagerSize;
    /** The largest message we send: the smaller of our limit and the peer's (agreed at connect). */
    private final int sendLimit;
    /** The peer's per-socket message window: what each socket may send before the peer grants more. */
    private final int peerSocketWindow;
    /** Receive credits at the peer (one kept for control messages). */
    private final CreditCounter credits;
    /** Bytes posted and not completed (the incast send window). */
    private final ByteWindow window;

    // sockets and messages
    private final IntObjectHashMap<EngineSocket> sockets = new IntObjectHashMap<>();
    private final ArrayDeque<EngineSocket> ready = new ArrayDeque<>();
    /**
     * Sockets made ready to send, handed over to the next turn (MPSC: any thread offers, the I/O thread included when
     * it answers what it received; the I/O thread consumes): a linked array queue, no node per offer.
     */
    private final java.util.Queue<EngineSocket> readyHandedOver = io.netty.util.internal.PlatformDependent.newMpscQueue();
    /** Whether a turn took sockets made ready since {@link #tookHandedOverSockets} was last asked (I/O thread). */
    private boolean socketsHandedOver;
    private final ArrayDeque<ControlMessage> control = new ArrayDeque<>();
    /** Sockets with a grant the peer has not been told of yet (EngineSocket.takeUntoldGrant). */
    private final ArrayDeque<EngineSocket> untoldGrants = new ArrayDeque<>();
    /** The rendezvous state machine, both directions. */
    private final Rendezvous rendezvous;
    /** The buffer the next small received message is copied into, made ready behind the doorbell. */
    private final CopyOutBuffer copyOut;
    /** The pull rendezvous, both directions (in use when both sides offered it at connect). */
    private final Pull pull;
    /** Where the message being named for pull lies (I/O thread, reused). */
    private final PayloadGather.Piece lastPiece = new PayloadGather.Piece();
    /** Both sides offered pull rendezvous: large messages in {@link #readables} go by pull. */
    private final boolean pullOn;
    /** READs this engine keeps outstanding on its queue pair: ours and the peer's limit, the smaller. */
    private final int maxReads;
    /** This peer's readable memory (REMOTE_READ, its own blocks), or null when pull is off. */
    private final RegisteredByteBufAllocator readables;
    private int nextSocketId;
    private long lastSendNanos = System.nanoTime();
    /**
     * When the destination pool is trimmed next: every heartbeat interval, so an empty block stays
     * while messages keep coming and goes within about two intervals of the last (RegisteredPool.trim).
     */
    private long nextTrimNanos = lastSendNanos;
    /** {@link EngineConfig#heartbeatInterval()}, in nanoseconds: read every turn. */
    private final long heartbeatNanos;
    /**
     * The batch being prepared carries something a blocked peer waits for (data, a rendezvous
     * answer, a socket opening or closing, a credit it is short of): its last receive-consuming
     * request goes solicited, so a peer armed for solicited events only wakes once for the batch.
     */
    private boolean batchWakesPeer;
    private boolean failed;
    /** Whether this engine was counted in {@link EngineMetrics#engineFailures()} (once per engine). */
    private boolean countedAsFailure;
    private final WorkRequestChain.Releaser releaser = this::releaseSlot;

    // teardown: a failed engine drains (keeps its memory) until its queue pair is quiet
    /** When a draining engine gives up waiting for flushes (System.nanoTime()). */
    private long drainDeadline;
    /** The drain receive is posted and not completed. */
    private boolean drainReceivePosted;
    /** The last receive completion seen while draining was a flush (WR_FLUSH_ERR). */
    private boolean lastReceiveFlushed;
    /** Everything is released and the queue pair destroyed. */
    private boolean released;

    Engine(ThreadDomain domain, EngineConfig config, CmConnection connection, ConnectionParameters peer, ByteBuf[] postedReceives,
           boolean client, Consumer<EngineSocket> acceptor) {
        this.domain = domain;
        this.config = config;
        this.heartbeatNanos = config.heartbeatInterval().toNanos();
        this.connection = connection;
        this.qp = connection.qp();
        this.peerName = "peer " + connection.remoteAddress() + " (qp " + qp.qpNum() + ")";
        this.memory = domain.memory();
        // this peer's own remote-writable memory: the rkeys it is given cover no other peer's buffers
        this.destinations = new RegisteredByteBufAllocator(memory.openDestinationPool(peerName));
        this.pullOn = config.pullRendezvous() && peer.pulls();
        // the peer may READ only this pool: messages addressed to it. Opened before anything else is
        // allocated: when the allocator is closing (a server disposed as it accepts), nothing leaks.
        RegisteredByteBufAllocator readable = null;
        ByteBuf header;
        try {
            readable = pullOn ? new RegisteredByteBufAllocator(memory.openReadablePool(peerName)) : null;
            header = memory.byteBufAllocator().directBuffer(config.sendQueueDepth() * HEADER_SLOT);
        } catch (RuntimeException | Error e) {
            if (readable != null) {
                readable.pool().close();
            }
            destinations.pool().close();
            throw e;
        }
        this.readables = readable;
        this.headerArea = header;
        this.client = client;
        this.acceptor = acceptor;
        this.metrics = domain.metrics();
        this.chain = new WorkRequestChain(config.sendQueueDepth(), PayloadGather.MAX_SGE);
        this.headerAddress = RegisteredByteBufAllocator.addressOf(headerArea);
        this.headerLkey = RegisteredByteBufAllocator.regionOf(headerArea).lkey();
        this.recvDepth = config.recvQueueDepth();
        this.recvBufferSize = recvBufferSize(config, client);
        this.repostBatch = Math.max(1, recvDepth / 8);
        this.creditReturnBatch = Math.max(1, recvDepth / 2);
        this.recvBufs = postedReceives;
        this.recvKept = new ByteBuf[recvDepth];
        this.recvBatch = new RecvWr[recvDepth];
        for (int i = 0; i < recvDepth; i++) {
            recvBatch[i] = new RecvWr();
        }
        this.toRepost = new int[recvDepth];
        this.peerDepth = peer.recvDepth();
        this.peerEagerSize = Math.min(peer.eagerSize(), config.eagerSendLimit(client));
        this.sendLimit = Math.min(config.maxMessageSize(), peer.maxMessageSize());
        this.peerSocketWindow = peer.socketMessageWindow();
        this.credits = new CreditCounter(peerDepth, RESERVED_CONTROL_CREDITS);
        this.window = new ByteWindow(config.sendWindowBytes());
        this.nextSocketId = client ? 1 : 2;
        Hooks hooks = new Hooks();
        this.rendezvous = new Rendezvous(hooks, config, peerName, metrics, destinations);
        this.copyOut = new CopyOutBuffer(memory.byteBufAllocator());
        this.pull = new Pull(hooks, config, peerName, metrics);
        // our queue pair's max_rd_atomic (strict soft mode refuses more; an RNIC would stall) and the peer's responder limit
        this.maxReads = Math.min(qp.attributes().maxRdAtomic(), peer.maxInboundReads());
        connection.onDisconnect().thenAccept(reason -> domain.execute(() -> {
            if (connection.peerLost()) {
                countFailure(); // also when a flush of the now-broken queue pair failed the engine first
            }
            if (failed) {
                drainStep(); // the queue pair is in ERROR now: its flushes may follow
            } else {
                fail(new EngineException(peerName + " disconnected: " + reason));
            }
        }));
    }

    /** What the rendezvous and pull state machines ask of the engine. */
    private final class Hooks implements Rendezvous.Host, Pull.Host {
        @Override
        public void queueControl(ControlMessage c) {
            control.add(c);
        }

        @Override
        public void makeReady(EngineSocket s) {
            Engine.this.makeReady(s);
        }

        @Override
        public EngineSocket socket(int id) {
            return sockets.get(id);
        }

        @Override
        public boolean pullRefused(int token, int length, String text) {
            return pull.onRefused(token, length, text);
        }

        @Override
        public ByteBuf pullDestination(int size) {
            return Engine.this.pullDestination(size);
        }
    }

    /**
     * Where a pulled message is read into (I/O thread): this engine's readable pool, which only
     * this peer may read and which holds only messages exchanged with it — so a reply made of the
     * message (an echo, a forwarded slice) goes back to it by pull without a copy.
     */
    private ByteBuf pullDestination(int size) {
        return readables.directBuffer(size, size);
    }

    /** The largest payload this engine sends eagerly (any thread: fixed at connect). */
    int peerEagerSize() {
        return peerEagerSize;
    }

    /**
     * Told of every READ the engine prepares, with the bounds it must keep (tests: the READ limit
     * and the windows are checked on every post). Null in production: one volatile read per READ.
     */
    interface ReadObserver {
        void readPrepared(int readsInFlight, int maxReads, long windowInFlight, long windowBytes, long domainPullBytes, long domainBudget);
    }

    static volatile ReadObserver readObserver;

    /** Bytes of each receive buffer this side posts: the header and the eager size it advertises. */
    private static int recvBufferSize(EngineConfig config, boolean client) {
        return WireHeader.SIZE + config.eagerSize(client);
    }

    /** Allocates and posts the receive buffers a new queue pair needs before it connects. */
    static ByteBuf[] postInitialReceives(QueuePair qp, RegisteredAllocator memory, EngineConfig config, boolean client) {
        int depth = config.recvQueueDepth();
        int size = recvBufferSize(config, client);
        ByteBuf[] bufs = new ByteBuf[depth];
        RecvWr[] wrs = new RecvWr[depth];
        for (int i = 0; i < depth; i++) {
            bufs[i] = memory.byteBufAllocator().directBuffer(size, size);
            wrs[i] = new RecvWr().wrId(i);
            wrs[i].setSge(RegisteredByteBufAllocator.addressOf(bufs[i]), size,
                    RegisteredByteBufAllocator.regionOf(bufs[i]).lkey());
        }
        qp.postRecv(wrs, 0, depth);
        return bufs;
    }

    public String peerName() {
        return peerName;
    }

    /** The peer's address as the connection manager reports it. */
    java.net.InetSocketAddress remoteAddress() {
        return connection.remoteAddress();
    }

    /** The largest message this engine sends: the smaller of our and the peer's maximum message size. */
    int maxMessageSize() {
        return sendLimit;
    }

    /** Tests: receive slots free on the queue pair (consumed, not posted again); read while its I/O thread is held. */
    int freeReceiveSlots() {
        return qp.freeRecvSlots();
    }

    /** Tests: the buffers of small messages, made ready behind the doorbell or allocated on their way (I/O thread). */
    CopyOutBuffer copyOut() {
        return copyOut;
    }

    int qpNum() {
        return qp.qpNum();
    }

    boolean isFailed() {
        return failed;
    }

    /** A destination buffer this engine's peer may WRITE into (this engine's destination pool). */
    ByteBuf allocateRemoteWritable(int size) {
        return destinations.directBuffer(size, size);
    }

    /** A buffer this engine's peer may READ (this engine's readable pool; any thread). */
    ByteBuf allocateRemoteReadable(int size) {
        if (readables == null) {
            throw new IllegalStateException("pull rendezvous is not on for the connection to " + peerName
                    + " (EngineConfig.withPullRendezvous on both sides): it has no readable memory; "
                    + "allocate from the connection's alloc()");
        }
        return readables.directBuffer(size, size);
    }

    /** The allocator of this engine's readable pool, or null when pull is off (any thread). */
    RegisteredByteBufAllocator remoteReadableAllocator() {
        return readables;
    }

    /** Whether messages to this peer may go by pull (both sides offered it). */
    boolean pullOn() {
        return pullOn;
    }

    /** Opens a socket to the peer (I/O thread). */
    EngineSocket openSocket() {
        int id = nextSocketId;
        nextSocketId += 2;
        EngineSocket s = new EngineSocket(this, id, peerSocketWindow);
        sockets.put(id, s);
        control.add(new ControlMessage(WireHeader.SOCKET_OPEN, id, 0, 0, 0, 0));
        metrics.socketOpened();
        return s;
    }

    /** Any thread: the socket has something to send. */
    void socketReady(EngineSocket s) {
        if (s.markScheduled()) {
            readyHandedOver.add(s);
            domain.wakeup();
        }
    }

    /**
     * Whether this engine took sockets made ready since the last call (I/O thread): an application sending, from
     * its own thread or from this one in answer to what it received (both go through {@link #socketReady}).
     */
    boolean tookHandedOverSockets() {
        if (!socketsHandedOver) {
            return false; // read only: asked on every turn, spinning included
        }
        socketsHandedOver = false;
        return true;
    }

    /** Sends the peer more allowance for socket {@code s} (I/O thread). */
    void grant(EngineSocket s, int messages) {
        if (!s.isEnded() && !failed) {
            s.granted(messages);
            if (s.addUntoldGrant(messages)) {
                untoldGrants.add(s); // told on the socket's next DATA this turn, else as SOCKET_CREDIT after the data
            }
        }
    }

    /**
     * After this turn's data (I/O thread): grants no DATA carried go as SOCKET_CREDIT, while the
     * chain and the credits allow; the rest wait for the next turn.
     */
    private void sendUntoldGrants() {
        while (!untoldGrants.isEmpty() && chain.free() > 0 && credits.availableForData() > 0) {
            EngineSocket s = untoldGrants.poll();
            s.grantDequeued();
            int messages = s.takeUntoldGrant();
            if (messages > 0 && !s.isEnded()) {
                prepareControl(WireHeader.SOCKET_CREDIT, s.id, messages, 0, 0, 0, null);
            }
        }
    }

    /**
     * Closes a socket once what it queued has been posted (I/O thread): SOCKET_CLOSE then goes in a
     * later batch than the socket's last message, so the peer receives everything first.
     */
    void closeWhenDrained(EngineSocket s) {
        if (s.isEnded()) {
            return;
        }
        if (!s.hasOutbound()) {
            closeSocket(s, null, true);
        } else {
            s.closeBy(System.nanoTime() + CLOSE_DRAIN_NANOS);
            closing.add(s);
        }
    }

    /** Closes a socket (I/O thread); {@code tellPeer} sends SOCKET_CLOSE. */
    void closeSocket(EngineSocket s, Throwable error, boolean tellPeer) {
        if (sockets.remove(s.id) != null) {
            metrics.socketClosed();
            if (tellPeer && !failed) {
                control.add(new ControlMessage(WireHeader.SOCKET_CLOSE, s.id, error == null ? 0 : 1, 0, 0, 0));
            }
        }
        s.end(error);
    }

    // ------------------------------------------------------------------ completions

    /** A completion of this engine's queue pair (I/O thread). */
    void onCompletion(WorkCompletion wc) {
        if (failed) {
            drainCompletion(wc);
            return;
        }
        if (!wc.isSuccess()) {
            if (wc.status() == WcStatus.RNR_RETRY_EXC_ERR) {
                metrics.rnr();
            }
            if (wc.status() != WcStatus.WR_FLUSH_ERR && connection.isConnected()) {
                countFailure(); // a transport error (a lost hardware peer: RETRY_EXC_ERR), not the flush a disconnect causes
            }
            fail(new EngineException(peerName + ": " + wc.status() + " — " + wc.status().description()
                    + (wc.errorDetail() != null ? " (" + wc.errorDetail() + ")" : "")));
            drainCompletion(wc); // this completion accounts for one posted request too
            return;
        }
        metrics.completion();
        try {
            if (wc.opcode() == WcOpcode.RECV) {
                onReceive(wc);
            } else if (wc.opcode() == WcOpcode.RECV_RDMA_WITH_IMM) {
                onWriteWithImmediate(wc);
            } else {
                chain.retire(wc.wrId(), releaser);
            }
        } catch (EngineException e) {
            countFailure(); // the peer broke the protocol, or its message could not be handled
            fail(e);
        } catch (RuntimeException | Error e) {
            countFailure();
            // A bug or an exhausted resource here must not escape: the thread domain would lose the
            // rest of its poll batch (other engines' receives never reposted, credits never returned).
            fail(new EngineException(peerName + ": handling a " + wc.opcode() + " completion failed: " + e, e));
        }
    }

    private void onReceive(WorkCompletion wc) {
        int slot = (int) wc.wrId();
        ByteBuf buf = takeReceive(slot);
        int n = wc.byteLen();
        boolean handedOver = false;
        try {
            if (n < WireHeader.SIZE) {
                throw new ProtocolException(peerName + " sent a " + n + "-byte message, shorter than the "
                        + WireHeader.SIZE + "-byte header");
            }
            int base = buf.readerIndex();
            byte type = WireHeader.type(buf, base);
            int flags = WireHeader.flags(buf, base);
            if (flags != 0 && (type != WireHeader.DATA || flags != WireHeader.FLAG_GRANT)) {
                throw new ProtocolException(peerName + " sent header flags " + flags + " on " + WireHeader.typeName(type)
                        + " (only DATA may carry " + WireHeader.FLAG_GRANT + ", a grant)");
            }
            addPeerCredits(WireHeader.credits(buf, base));
            int socketId = WireHeader.socket(buf, base);
            int length = WireHeader.length(buf, base);
            int token = WireHeader.token(buf, base);
            metrics.received(n);
            switch (type) {
                case WireHeader.DATA: {
                    if (length != n - WireHeader.SIZE) {
                        throw new ProtocolException(peerName + " sent DATA whose header says " + length + " bytes but "
                                + (n - WireHeader.SIZE) + " came");
                    }
                    EngineSocket s = sockets.get(socketId);
                    if (flags == WireHeader.FLAG_GRANT) {
                        onSocketCredit(s, socketId, token);
                    }
                    if (s == null) {
                        break;
                    }
                    if (length <= COPY_OUT_LIMIT) {
                        s.deliver(copyOut.take(length).writeBytes(buf, base + WireHeader.SIZE, length));
                    } else {
                        buf.setIndex(base + WireHeader.SIZE, base + n);
                        handedOver = true;
                        s.deliver(buf);
                    }
                    break;
                }
                case WireHeader.RNDV_REQUEST:
                    rendezvous.onRequest(socketId, length, token);
                    break;
                case WireHeader.RNDV_ANSWER:
                    rendezvous.onAnswer(buf, base, n, length, token);
                    break;
                case WireHeader.RNDV_REFUSE:
                    rendezvous.onRefused(buf, base, n, length, token);
                    break;
                case WireHeader.RNDV_ABANDON:
                    rendezvous.onAbandoned(socketId, token);
                    break;
                case WireHeader.RNDV_REVOKE:
                    rendezvous.onRevoked(socketId, token);
                    break;
                case WireHeader.PULL_REQUEST:
                    if (!pullOn) {
                        throw new ProtocolException(peerName + " offered a message to pull, which we did not agree to at connect");
                    }
                    if (n < WireHeader.PULL_REQUEST_SIZE) {
                        throw new ProtocolException(peerName + " sent a " + n + "-byte pull request");
                    }
                    pull.onRequest(socketId, length, token, buf.getLongLE(base + WireHeader.OFF_ADDRESS),
                            buf.getIntLE(base + WireHeader.OFF_RKEY),
                            buf, base + WireHeader.PULL_REQUEST_SIZE, n - WireHeader.PULL_REQUEST_SIZE);
                    break;
                case WireHeader.PULL_DONE:
                    pull.onDone(buf, base, n, length);
                    break;
                case WireHeader.CREDIT:
                case WireHeader.HEARTBEAT:
                    break;
                case WireHeader.SOCKET_OPEN: {
                    if (sockets.containsKey(socketId) || (socketId & 1) == (client ? 1 : 0)) {
                        throw new ProtocolException(peerName + " opened socket " + socketId + ", which is taken or not its to open");
                    }
                    EngineSocket s = new EngineSocket(this, socketId, peerSocketWindow);
                    sockets.put(socketId, s);
                    metrics.socketOpened();
                    if (acceptor == null) {
                        closeSocket(s, null, true);
                    } else {
                        try {
                            acceptor.accept(s);
                        } catch (RuntimeException | Error e) {
                            closeSocket(s,
                                    new EngineException("the acceptor of socket " + socketId + " from " + peerName + " threw " + e, e),
                                    true);
                        }
                    }
                    break;
                }
                case WireHeader.SOCKET_CLOSE: {
                    EngineSocket held = length == 0 ? sockets.get(socketId) : null;
                    if (held != null && held.holdsPulls()) {
                        held.endAfterPulls(); // a graceful close follows the messages pulled before it
                        break;
                    }
                    EngineSocket s = sockets.remove(socketId);
                    if (s != null) {
                        metrics.socketClosed();
                        s.end(length == 0 ? null : new EngineException(peerName + " closed socket " + socketId + " with an error"));
                    }
                    break;
                }
                case WireHeader.SOCKET_CREDIT:
                    onSocketCredit(sockets.get(socketId), socketId, length);
                    break;
                case WireHeader.CLOSE:
                    fail(new EngineException(peerName + " closed the connection"));
                    break;
                default:
                    throw new ProtocolException(peerName + " sent a message of " + WireHeader.typeName(type));
            }
        } finally {
            if (!handedOver) {
                recvKept[slot] = buf;
            }
        }
    }

    /** The peer granted socket {@code s} (null: already closed here) {@code messages} more, by SOCKET_CREDIT or on DATA. */
    private void onSocketCredit(EngineSocket s, int socketId, int messages) {
        if (messages < 1) {
            throw new ProtocolException(peerName + " granted " + messages + " messages on socket " + socketId);
        }
        if (s != null) {
            s.addAllowance(messages);
            if (s.hasOutbound()) {
                makeReady(s); // no-op when parked: the next turn retries it
            }
        }
    }

    private ByteBuf takeReceive(int slot) {
        if (slot < 0 || slot >= recvDepth || recvBufs[slot] == null) {
            throw new ProtocolException("receive completion for slot " + slot + ", which holds no buffer");
        }
        ByteBuf buf = recvBufs[slot];
        recvBufs[slot] = null;
        toRepost[toRepostCount++] = slot;
        return buf;
    }

    private void addPeerCredits(int credits) {
        if (credits == 0) {
            return;
        }
        try {
            this.credits.release(credits);
        } catch (IllegalStateException e) {
            throw new ProtocolException(peerName + " returned " + credits + " credits, more than it was owed ("
                    + this.credits.inUse() + ")");
        }
    }

    /**
     * A socket ended with {@code m} in progress (I/O thread): the payload is released, and the peer
     * is told to free the destination — after the fragments already posted, none follows.
     */
    void abandon(OutboundMessage m) {
        m.release();
        if (failed || m.isDirect()) {
            return;
        }
        rendezvous.abandon(m);
    }

    /** A socket ended with {@code p} still being pulled (I/O thread): no more READs of it. */
    void abandonPull(Pull.Inbound p) {
        pull.abandon(p);
    }

    /** The peer's graceful close took effect after the messages pulled before it (I/O thread). */
    void closedByPeer(EngineSocket s) {
        if (sockets.remove(s.id) != null) {
            metrics.socketClosed();
        }
        s.end(null);
    }

    private void onWriteWithImmediate(WorkCompletion wc) {
        int slot = (int) wc.wrId();
        recvKept[slot] = takeReceive(slot); // an immediate carries nothing in the buffer
        if ((wc.immData() & DirectWrite.IMM_FLAG) != 0) {
            EngineSocket s = sockets.get(wc.immData() & ~DirectWrite.IMM_FLAG);
            metrics.received(wc.byteLen());
            if (s != null) {
                s.remoteWrite(wc.byteLen());
            }
            return;
        }
        rendezvous.onWriteCompleted(wc.immData());
    }

    // ------------------------------------------------------------------ scheduling

    private void makeReady(EngineSocket s) {
        if (s.markScheduled()) {
            ready.add(s);
        }
    }

    /**
     * One scheduling turn (I/O thread): prepare what may go, post it in one call, then repost consumed
     * receives (before a CREDIT when nothing goes).
     *
     * @return whether anything was posted
     */
    boolean run() {
        if (failed) {
            return false;
        }
        try {
            rendezvous.checkRevocations();
            pull.checkSources();
            if (!parked.isEmpty()) {
                // Capacity may have come back since the last turn. Sockets that waited go first:
                // behind a busy socket that re-queued itself they would lose every race for the window.
                for (int i = parked.size() - 1; i >= 0; i--) {
                    ready.addFirst(parked.get(i));
                }
                parked.clear();
            }
            EngineSocket s;
            while ((s = readyHandedOver.poll()) != null) {
                ready.add(s);
                socketsHandedOver = true;
            }
            // Only CREDIT may use the reserved credit: were anything else to take it, both sides could end
            // up owing each other credits with none left to say so.
            while (!control.isEmpty() && chain.free() > 0 && credits.availableForData() > 0) {
                prepareControl(control.poll());
            }
            if (pull.hasNotice() && chain.free() > 0 && credits.availableForData() > 0) {
                preparePullNotice();
            }
            if (pull.hasReadsToPost()) {
                preparePulls();
            }
            // Round robin, one fragment per socket per pass, and as many passes as fit the chain: what
            // is ready now goes in this turn's one post (one doorbell, one wake of the peer), not one
            // message per turn. The polls are bounded too: a producer offering to a socket while it is
            // being drained holds this post back at most until the chain is full.
            int polls = ready.size() + chain.free();
            while (polls-- > 0 && !ready.isEmpty() && chain.free() > 0) {
                s = ready.poll();
                if (s.isEnded()) {
                    s.unschedule();
                } else if (prepareOne(s)) {
                    if (s.hasOutbound()) {
                        ready.add(s);
                    } else {
                        s.unschedule();
                        if (s.hasOutbound()) {
                            makeReady(s); // raced with an offer
                        }
                    }
                } else {
                    parked.add(s); // waits for credits, window, allowance or an answer; stays scheduled
                }
            }
            if (!untoldGrants.isEmpty()) {
                sendUntoldGrants();
            }
            if (!closing.isEmpty()) {
                closeDrainedSockets();
            }
            if (chain.pending() == 0) {
                replenishReceives(); // nothing goes out this turn: post them now, so that a CREDIT below may return them
            }
            if (creditsToReturn >= creditReturnBatch && chain.pending() == 0 && chain.free() > 0 && credits.available() > 0) {
                prepareControl(ControlMessage.CREDIT);
            }
            long now = domain.turnNanos(); // the domain's clock of this turn: no clock read per engine per idle turn
            if (chain.pending() == 0 && now - lastSendNanos > heartbeatNanos && chain.free() > 0
                    && credits.availableForData() > 0) {
                prepareControl(ControlMessage.HEARTBEAT);
            }
            if (now - nextTrimNanos >= 0) {
                destinations.pool().trim();
                if (readables != null) {
                    readables.pool().trim();
                }
                nextTrimNanos = now + heartbeatNanos;
            }
            boolean posting = chain.pending() > 0;
            if (posting) {
                if (batchWakesPeer) {
                    chain.solicitLastReceiveConsuming();
                    batchWakesPeer = false;
                }
                metrics.inFlight(window.inFlight(), credits.available());
                long signaledBefore = chain.signaledRequests();
                int n = chain.post(qp);
                metrics.doorbell(n, chain.signaledRequests() - signaledBefore);
                lastSendNanos = now;
                replenishReceives(); // behind the doorbell, off the way of what it sent; returned on the next header
            }
            copyOut.prepare(); // the next small message's buffer: behind the doorbell, or in a turn that sent nothing
            return posting;
        } catch (RuntimeException e) {
            fail(e instanceof EngineException ? e : new EngineException(peerName + ": " + e.getMessage(), e));
            return true;
        }
    }

    /** Sockets closing gracefully, waiting for their queued messages to be posted. */
    private final List<EngineSocket> closing = new ArrayList<>();

    /** Sockets that could not progress last turn (credits, window, allowance, rendezvous answer); retried each turn. */
    private final List<EngineSocket> parked = new ArrayList<>();

    private void closeDrainedSockets() {
        long now = System.nanoTime();
        for (int i = closing.size() - 1; i >= 0; i--) {
            EngineSocket s = closing.get(i);
            if (s.isEnded() || !s.hasOutbound() || s.closeOverdue(now)) {
                closing.remove(i);
                closeSocket(s, null, true);
            }
        }
    }

    private void replenishReceives() {
        if (toRepostCount < repostBatch) {
            return;
        }
        int n = toRepostCount;
        int size = recvBufferSize;
        for (int i = 0; i < n; i++) {
            int slot = toRepost[i];
            ByteBuf b = recvKept[slot];
            if (b != null) {
                recvKept[slot] = null;
                b.clear();
            } else {
                b = memory.byteBufAllocator().directBuffer(size, size);
            }
            recvBufs[slot] = b;
            recvBatch[i].wrId(slot).setSge(RegisteredByteBufAllocator.addressOf(b), size, RegisteredByteBufAllocator.regionOf(b).lkey());
        }
        qp.postRecv(recvBatch, 0, n);
        toRepostCount = 0;
        creditsToReturn += n;
    }

    private int takeCreditsToReturn() {
        int c = Math.min(creditsToReturn, WireHeader.MAX_CREDITS);
        creditsToReturn -= c;
        return c;
    }

    private void prepareControl(ControlMessage c) {
        prepareControl(c.type, c.socket, c.length, c.token, c.address, c.rkey, c.text);
    }

    /** Prepares one control message from its fields (allocation-free unless it carries a refusal's text). */
    private void prepareControl(byte type, int socket, int length, int token, long address, int rkey, String refusal) {
        if (controlWakesPeer(type, socket, length)) {
            batchWakesPeer = true;
        }
        ByteBuf text = type == WireHeader.RNDV_REFUSE ? refusalText(refusal) : null;
        SendWr wr = chain.prepare(text, 0); // control messages are outside the send window
        int slot = (int) (wr.wrId() % chain.depth());
        int at = slot * HEADER_SLOT;
        WireHeader.write(headerArea, at, type, takeCreditsToReturn(), socket, length, token);
        int bytes = WireHeader.SIZE;
        if (type == WireHeader.RNDV_ANSWER) {
            headerArea.setLongLE(at + WireHeader.OFF_ADDRESS, address);
            headerArea.setIntLE(at + WireHeader.OFF_RKEY, rkey);
            bytes = WireHeader.RNDV_ANSWER_SIZE;
        } else if (type == WireHeader.RNDV_REFUSE) {
            headerArea.setIntLE(at + WireHeader.OFF_REFUSE_REASON, (int) address);
            headerArea.setShortLE(at + WireHeader.OFF_REFUSE_TEXT_LENGTH, text == null ? 0 : text.readableBytes());
            bytes = WireHeader.RNDV_REFUSE_SIZE;
        }
        wr.opcode(WrOpcode.SEND).addSge(headerAddress + at, bytes, headerLkey);
        if (text != null) {
            PayloadGather.addSges(wr, text, 0, text.readableBytes());
            bytes += text.readableBytes();
        }
        if (type == WireHeader.CREDIT) {
            credits.tryAcquireControl(); // may take the reserve; checked available() > 0 before, on this thread
        } else {
            credits.tryAcquireData(); // checked availableForData() > 0 before, on this thread
        }
        metrics.sent(bytes);
    }

    /**
     * Whether a control message must wake a peer that armed for solicited events only. Heartbeats
     * never (a liveness check, read at the peer's next turn), nor credits and socket credits while
     * the peer still has a quarter of them (the soft/hard grant of UCX's RC flow control): a peer
     * that waits on a send resource arms for every completion anyway (ThreadDomain), this only
     * keeps one that is merely low from stalling. Everything else a peer acts on at once.
     */
    private boolean controlWakesPeer(byte type, int socket, int length) {
        switch (type) {
            case WireHeader.HEARTBEAT:
                return false;
            case WireHeader.CREDIT:
                // the peer may still use what we have not returned: our depth less what it consumed and we hold
                return recvDepth - creditsToReturn - toRepostCount < recvDepth / 4;
            case WireHeader.SOCKET_CREDIT: {
                EngineSocket s = sockets.get(socket);
                // receiveHeadroom() already counts this grant: what the peer had left before it
                return s == null || s.receiveHeadroom() - length < Math.max(1, s.receiveWindow() / 4);
            }
            default:
                return true;
        }
    }

    /**
     * Whether this engine waits for something only an unsolicited completion brings (I/O thread):
     * a send completion (chain slots, send window), a credit or socket credit the peer may return
     * unsolicited, or the flushes of a drain. Its thread domain then arms for every completion.
     */
    boolean waitsOnSendResource() {
        if (failed || !control.isEmpty() || !untoldGrants.isEmpty() || !ready.isEmpty() || !closing.isEmpty()
                || chain.pending() > 0 || chain.free() == 0) {
            return true;
        }
        if (pull.readsInFlight() > 0 || pull.hasReadsToPost() || pull.hasNotice()) {
            return true; // READ completions are send completions, which never raise a solicited-only arm
        }
        for (int i = 0; i < parked.size(); i++) {
            OutboundMessage m = parked.get(i).inProgress();
            if (m == null || m.answered) {
                return true; // waits for credits, window or allowance; one waiting for its answer waits for a solicited SEND
            }
        }
        return false;
    }

    /** Prepares at most one fragment of socket {@code s}; false when it must wait (credits, window, allowance). */
    private boolean prepareOne(EngineSocket s) {
        OutboundMessage m = s.inProgress();
        if (m != null) {
            return m.answered && prepareFragment(s, m);
        }
        Object head = s.peekOutbound();
        if (head == null) {
            return false;
        }
        if (head instanceof DirectWrite) {
            return prepareDirectWrite(s, (DirectWrite) head);
        }
        ByteBuf msg = (ByteBuf) head;
        int size = msg.readableBytes();
        if (size > sendLimit) {
            s.pollOutbound();
            s.rejected(msg, s.lastTaken(), new MessageTooLargeException(tooLarge(size)));
            s.sent(1);
            return true;
        }
        if (!s.hasAllowance()) {
            metrics.socketStall();
            return false;
        }
        if (credits.availableForData() == 0) {
            metrics.creditStall();
            return false;
        }
        if (size <= peerEagerSize) {
            int bytes = WireHeader.SIZE + size;
            if (!window.tryAcquire(bytes)) {
                metrics.windowStall();
                return false;
            }
            credits.tryAcquireData(); // available, checked above, on this thread
            s.pollOutbound();
            ByteBuf payload = registered(msg);
            SendWr wr = chain.prepare(payload, bytes);
            int at = (int) (wr.wrId() % chain.depth()) * HEADER_SLOT;
            int grant = s.takeUntoldGrant(); // a SOCKET_CREDIT saved: it rides on data that goes anyway
            WireHeader.write(headerArea, at, WireHeader.DATA, grant > 0 ? WireHeader.FLAG_GRANT : 0, takeCreditsToReturn(),
                    s.id, size, grant);
            wr.opcode(WrOpcode.SEND).addSge(headerAddress + at, WireHeader.SIZE, headerLkey);
            batchWakesPeer = true;
            if (size > 0) {
                PayloadGather.addSges(wr, payload, 0, size);
            }
            s.takeAllowance();
            s.sent(1);
            metrics.sent(bytes);
            return true;
        }
        int inlineHead = pullOn ? pullHead(msg, size) : -1;
        if (inlineHead >= 0 || (pullOn && size <= config.pullCopyLimit())) {
            // the bytes the peer may READ count against this engine's send window, as WRITEs would
            if (!pull.reserveExposure(size)) {
                metrics.windowStall();
                return false;
            }
            if (inlineHead >= 0) {
                s.pollOutbound();
                return preparePullRequest(s, msg, size, inlineHead);
            }
            ByteBuf copy = readableCopyDestination(size);
            if (copy != null) {
                s.pollOutbound(); // taken (OutboundListener.onTaken) before it is copied and released
                ByteBuf source = copyForPull(msg, copy, size);
                PayloadGather.lastPiece(source, lastPiece); // all of it: the copy is contiguous
                return preparePullRequest(s, source, size, 0);
            }
            pull.unreserveExposure(size); // no readable memory now: the WRITE rendezvous needs none
        }
        // rendezvous: ask for a destination, send the fragments once it is known
        s.pollOutbound();
        m = rendezvous.begin(s, registered(msg));
        SendWr wr = chain.prepare(null, 0); // the request is control traffic; the WRITEs count against the window
        int at = (int) (wr.wrId() % chain.depth()) * HEADER_SLOT;
        WireHeader.write(headerArea, at, WireHeader.RNDV_REQUEST, takeCreditsToReturn(), s.id, size, m.token);
        wr.opcode(WrOpcode.SEND).addSge(headerAddress + at, WireHeader.SIZE, headerLkey);
        batchWakesPeer = true; // the peer answers it at once: a wake, not its next heartbeat turn
        credits.tryAcquireData(); // available, checked above, on this thread
        s.takeAllowance();
        metrics.sent(WireHeader.SIZE);
        return true; // the message counts as sent (OutboundListener.onSent) once its last fragment is posted, or it fails
    }

    /**
     * Room in this engine's readable pool for a copy of a {@code size}-byte message to be pulled,
     * or null when the pool cannot take it now (the message then goes by WRITE rendezvous, which
     * needs no readable memory). I/O thread.
     */
    private ByteBuf readableCopyDestination(int size) {
        try {
            return readables.directBuffer(size, size);
        } catch (RuntimeException | OutOfMemoryError e) {
            return null;
        }
    }

    /**
     * Copies {@code msg}, taken from its socket, into {@code copy} (readable memory) and releases
     * it: the peer READs the copy. If the copy fails both are released and the exposure reserved
     * for it is given back (the message was taken, so the failure ends its socket as any failure
     * to send it would).
     */
    private ByteBuf copyForPull(ByteBuf msg, ByteBuf copy, int size) {
        try {
            copy.writeBytes(msg, msg.readerIndex(), size);
            if (PayloadGather.inPlace(msg, memory.protectionDomain())) {
                metrics.pullCopy(size);
            } else {
                metrics.copyOnSend(size); // outside registered memory: copied whichever way it goes
            }
            return copy;
        } catch (RuntimeException e) {
            copy.release();
            pull.unreserveExposure(size);
            throw e;
        } finally {
            msg.release();
        }
    }

    /**
     * How many leading bytes of {@code msg} a PULL_REQUEST must carry inline for the peer to READ
     * the rest where it lies, or -1 when the message cannot go by pull without a copy. The last
     * piece (all of the message when it is contiguous) must lie in memory this peer may read: this
     * engine's readable pool, or the allocator's memory readable by every peer
     * ({@code RegisteredAllocator.remoteReadable}). The pieces before it (RSocket's frame header
     * and metadata) travel in the request: at most {@link WireHeader#PULL_HEAD_MAX} bytes, within
     * the peer's eager size.
     */
    private int pullHead(ByteBuf msg, int size) {
        if (!PayloadGather.inPlace(msg, memory.protectionDomain())) {
            return -1;
        }
        PayloadGather.lastPiece(msg, lastPiece);
        io.reactorrdma.memory.Chunk region = lastPiece.region;
        if (region == null || (region.pool() != readables.pool() && region.pool() != memory.remoteReadable())) {
            return -1;
        }
        int head = size - lastPiece.length;
        return head <= Math.min(WireHeader.PULL_HEAD_MAX, peerEagerSize - WireHeader.PULL_REQUEST_SIZE) ? head : -1;
    }

    /**
     * Names a message, taken from socket {@code s}, to the peer to pull (PULL_REQUEST, solicited):
     * the source is its last piece, already in {@link #lastPiece}, the {@code head} bytes before it
     * travel in the request. It
     * counts as sent now (the sender's I/O thread does nothing more for it), and the whole message
     * is held until the peer's PULL_DONE releases it. The socket's next messages go at once; the
     * peer keeps the order.
     */
    private boolean preparePullRequest(EngineSocket s, ByteBuf msg, int size, int head) {
        int token = rendezvous.nextToken();
        SendWr wr = chain.prepare(null, 0); // control traffic: the peer's READs count against its window
        int at = (int) (wr.wrId() % chain.depth()) * HEADER_SLOT;
        WireHeader.write(headerArea, at, WireHeader.PULL_REQUEST, takeCreditsToReturn(), s.id, size, token);
        headerArea.setLongLE(at + WireHeader.OFF_ADDRESS, lastPiece.address);
        headerArea.setIntLE(at + WireHeader.OFF_RKEY, lastPiece.region.rkey());
        wr.opcode(WrOpcode.SEND).addSge(headerAddress + at, WireHeader.PULL_REQUEST_SIZE, headerLkey);
        if (head > 0) {
            // held with the source until PULL_DONE, which comes only after the peer received this SEND
            PayloadGather.addSges(wr, msg, 0, head);
        }
        batchWakesPeer = true; // the peer starts reading at once
        credits.tryAcquireData(); // available, checked by the caller, on this thread
        s.takeAllowance();
        pull.expose(token, s, msg);
        metrics.sent(WireHeader.PULL_REQUEST_SIZE + head);
        s.pullPending(); // before it counts as sent: a send waiting for it stays open until the peer settles it
        s.sent(1);
        return true;
    }

    /**
     * Posts READ fragments of the peer's messages, oldest first, while the chain has slots, the
     * queue pair is under its READ limit, and the send window (this engine) and pull budget (this
     * thread domain) have room for the fragment. Destinations come from this engine's readable
     * pool: the peer may read them, but they hold only messages exchanged with it.
     */
    private void preparePulls() {
        Pull.Inbound p;
        while (chain.free() > 0 && pull.readsInFlight() < maxReads && (p = pull.nextToRead()) != null) {
            if (p.destination == null) {
                if (p.refusal != null) {
                    pull.refuse(p, p.refusal); // its inline head had no destination when it arrived
                    continue;
                }
                try {
                    p.destination = pullDestination(p.size);
                } catch (RuntimeException | OutOfMemoryError e) {
                    pull.refuse(p, e.getMessage() != null ? e.getMessage() : e.toString());
                    continue;
                }
            }
            // a READ never exceeds the domain's budget, or one larger than it would never be admitted
            int fragment = (int) Math.min(Math.min(config.fragmentSize(), config.pullBudgetBytes()), p.size - p.posted);
            if (!window.tryAcquire(fragment)) {
                metrics.windowStall();
                return;
            }
            if (!domain.takePullBudget(fragment)) {
                window.release(fragment);
                return;
            }
            SendWr wr = chain.prepare(p, fragment);
            wr.opcode(WrOpcode.READ).remote(p.sourceAddress + p.posted, p.rkey);
            wr.addSge(RegisteredByteBufAllocator.addressOf(p.destination) + p.posted, fragment,
                    RegisteredByteBufAllocator.regionOf(p.destination).lkey());
            pull.readPrepared(p, fragment);
            ReadObserver o = readObserver;
            if (o != null) {
                o.readPrepared(pull.readsInFlight(), maxReads, window.inFlight(), config.sendWindowBytes(), domain.pullBytesInFlight(),
                        config.pullBudgetBytes());
            }
        }
    }

    /**
     * One PULL_DONE (unsolicited: the sender needs no wake to free memory) with the tokens released
     * so far: up to {@link #INLINE_NOTICE_TOKENS} in the header slot itself (no allocation), more in
     * a registered buffer that goes back with the slot.
     */
    private void preparePullNotice() {
        int max = Math.min(Pull.MAX_NOTICE_TOKENS, Math.max(INLINE_NOTICE_TOKENS, peerEagerSize / WireHeader.PULL_DONE_TOKEN));
        ByteBuf body = null;
        if (pull.noticeCount() > INLINE_NOTICE_TOKENS) {
            try {
                body = memory.byteBufAllocator().directBuffer(Math.min(max, pull.noticeCount()) * WireHeader.PULL_DONE_TOKEN);
            } catch (RuntimeException | OutOfMemoryError e) {
                body = null; // this notice carries what fits the header slot; the rest waits
            }
        }
        SendWr wr = chain.prepare(body, 0); // control traffic; a body goes back with the slot
        int at = (int) (wr.wrId() % chain.depth()) * HEADER_SLOT;
        int n;
        if (body == null) {
            n = pull.takeNotice(headerArea, at + WireHeader.SIZE, INLINE_NOTICE_TOKENS);
            wr.opcode(WrOpcode.SEND).addSge(headerAddress + at, WireHeader.SIZE + n * WireHeader.PULL_DONE_TOKEN, headerLkey);
        } else {
            n = pull.takeNotice(body, 0, max);
            body.writerIndex(n * WireHeader.PULL_DONE_TOKEN);
            wr.opcode(WrOpcode.SEND).addSge(headerAddress + at, WireHeader.SIZE, headerLkey);
            PayloadGather.addSges(wr, body, 0, body.readableBytes());
        }
        WireHeader.write(headerArea, at, WireHeader.PULL_DONE, takeCreditsToReturn(), 0, n, 0);
        credits.tryAcquireData(); // checked availableForData() > 0 before, on this thread
        metrics.sent(WireHeader.SIZE + n * WireHeader.PULL_DONE_TOKEN);
    }

    /** Why a {@code size}-byte message is refused, naming whose limit it exceeds. */
    private String tooLarge(int size) {
        String whose = sendLimit < config.maxMessageSize()
                ? "the peer's maximum message size of " + sendLimit + " bytes (its EngineConfig.withMaxMessageSize; ours is "
                        + config.maxMessageSize() + ")"
                : "the maximum message size of " + sendLimit + " bytes (EngineConfig.withMaxMessageSize)";
        return "a " + size + "-byte message to " + peerName + " exceeds " + whose + "; it was not sent, the connection goes on";
    }

    /**
     * Starts a direct write: its fragments go like a rendezvous message's, without the request and
     * answer. It takes none of the socket's message allowance: that bounds messages the peer must
     * hold until its subscriber takes them, and a direct write lands in memory the peer already set
     * aside and leaves it nothing to hold (its WRITE_WITH_IMM costs an engine credit, as any does).
     */
    private boolean prepareDirectWrite(EngineSocket s, DirectWrite w) {
        int size = w.payload().readableBytes();
        if (size == 0 || size > config.maxMessageSize()) {
            s.pollOutbound();
            s.rejected(w.payload(), s.lastTaken(), new MessageTooLargeException("a direct write of " + size + " bytes: it must be 1.."
                    + config.maxMessageSize() + " bytes (EngineConfig.withMaxMessageSize); it was not sent, the connection goes on"));
            s.sent(1);
            return true;
        }
        s.pollOutbound();
        OutboundMessage m = OutboundMessage.direct(s, registered(w.payload()), w.remoteAddress(), w.rkey());
        s.startMessage(m);
        s.sent(1);
        prepareFragment(s, m); // may wait for window room or a credit; the socket made progress either way
        return true;
    }

    private boolean prepareFragment(EngineSocket s, OutboundMessage m) {
        int fragment = Math.min(config.fragmentSize(), m.size - m.offset);
        boolean last = m.offset + fragment == m.size;
        if (last && credits.availableForData() == 0) {
            metrics.creditStall();
            return false;
        }
        if (!window.tryAcquire(fragment)) {
            metrics.windowStall();
            return false;
        }
        SendWr wr = chain.prepare(m.payload.retain(), fragment);
        wr.opcode(last ? WrOpcode.WRITE_WITH_IMM : WrOpcode.WRITE).remote(m.remoteAddress + m.offset, m.rkey);
        if (last) {
            wr.immData(m.token);
            credits.tryAcquireData();
            batchWakesPeer = true; // the message (or the direct write's notice) is complete at the peer
        }
        PayloadGather.addSges(wr, m.payload, m.offset, fragment);
        m.offset += fragment;
        metrics.sent(fragment);
        if (last) {
            m.release();
            s.finishMessage();
            if (!m.isDirect()) {
                rendezvous.lastFragmentPosted(m);
                s.sent(1); // a direct write counted when it started
            }
        }
        return true;
    }

    /** The text of a refusal in registered memory (released with its work request), or null without text or memory. */
    private ByteBuf refusalText(String reason) {
        if (reason == null || reason.isEmpty()) {
            return null;
        }
        byte[] utf8 = reason.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int n = utf8Prefix(utf8, Math.min(WireHeader.MAX_REFUSE_TEXT, peerEagerSize - (WireHeader.RNDV_REFUSE_SIZE - WireHeader.SIZE)));
        if (n == 0) {
            return null;
        }
        try {
            return memory.byteBufAllocator().directBuffer(n, n).writeBytes(utf8, 0, n);
        } catch (RuntimeException | OutOfMemoryError e) {
            return null; // the refusal still goes, without its text
        }
    }

    /**
     * How many leading bytes of {@code utf8} fit in {@code limit} bytes without splitting a
     * character: a cut before a continuation byte (10xxxxxx) backs off to that character's first
     * byte, so the peer decodes the text without a malformed sequence at its end.
     */
    static int utf8Prefix(byte[] utf8, int limit) {
        int n = Math.min(utf8.length, Math.max(0, limit));
        while (n > 0 && n < utf8.length && (utf8[n] & 0xC0) == 0x80) {
            n--;
        }
        return n;
    }

    /**
     * The payload in registered memory of this engine's protection domain, as is when the NIC can
     * gather it ({@link PayloadGather}), else copied once (counted) — also a buffer of another
     * allocator, whose keys mean nothing to this queue pair.
     */
    private ByteBuf registered(ByteBuf msg) {
        if (PayloadGather.inPlace(msg, memory.protectionDomain())) {
            return msg;
        }
        int n = msg.readableBytes();
        ByteBuf copy = memory.byteBufAllocator().directBuffer(Math.max(n, 1), Math.max(n, 1));
        copy.writeBytes(msg, msg.readerIndex(), n);
        msg.release();
        metrics.copyOnSend(n);
        return copy;
    }

    private void releaseSlot(Object attachment, int bytes, boolean success) {
        if (bytes > 0) {
            window.release(bytes);
        }
        if (attachment instanceof ByteBuf) {
            ((ByteBuf) attachment).release();
        } else if (attachment instanceof Pull.Inbound) {
            domain.returnPullBudget(bytes);
            pull.readRetired((Pull.Inbound) attachment, bytes, success);
        }
    }

    // ------------------------------------------------------------------ failure and close

    /**
     * Fails the engine (I/O thread): every socket ends with {@code cause} at once, and the
     * connection is disconnected. Memory the peer may still write into — posted receive buffers,
     * answered rendezvous destinations — and the memory our posted requests read is kept until the
     * queue pair is quiet ({@link #drainStep}); until then the engine drains on its thread domain.
     */
    void fail(Throwable cause) {
        if (failed) {
            return;
        }
        failed = true;
        drainDeadline = System.nanoTime() + config.drainTimeout().toNanos();
        connection.disconnect(); // may complete later (an asynchronous CM): the drain waits for it
        chain.abandonPending(releaser); // never posted: nothing reads them
        copyOut.release(); // nothing more is delivered
        rendezvous.dropOutbound(); // sockets end below, which releases the payloads of messages under way
        pull.fail(); // nothing more is read or delivered; the sources we exposed stay until the queue pair is quiet
        EngineException error = cause instanceof EngineException ? (EngineException) cause
                : new EngineException("engine to " + peerName + " failed: " + cause.getMessage(), cause);
        for (EngineSocket s : new ArrayList<>(sockets.values())) {
            s.end(error);
            metrics.socketClosed();
        }
        sockets.clear();
        control.clear();
        untoldGrants.clear();
        parked.clear();
        closing.clear();
        domain.removed(this, error);
        drainStep();
        if (!released && domain.isTerminated()) {
            // failed after its domain's loop ended (a late disconnect, a late registration): nothing
            // polls its completions any more, so it cannot drain — destroy the queue pair, then release
            releaseAll();
        }
    }

    /** Counts this engine in {@link EngineMetrics#engineFailures()}, once (I/O thread). */
    private void countFailure() {
        if (!countedAsFailure) {
            countedAsFailure = true;
            metrics.engineFailed();
        }
    }

    /** A completion of a failed engine: it accounts for one posted request (I/O thread). */
    private void drainCompletion(WorkCompletion wc) {
        if (released) {
            return;
        }
        if (wc.opcode() == WcOpcode.RECV || wc.opcode() == WcOpcode.RECV_RDMA_WITH_IMM) {
            long id = wc.wrId();
            if (id == DRAIN_WR_ID) {
                drainReceivePosted = false;
            } else if (id >= 0 && id < recvDepth && recvBufs[(int) id] != null) {
                recvBufs[(int) id].release(); // what arrives now has no socket to go to
                recvBufs[(int) id] = null;
            }
            lastReceiveFlushed = wc.status() == WcStatus.WR_FLUSH_ERR;
        } else if (chain.isInFlight(wc.wrId())) {
            chain.retire(wc.wrId(), releaser);
        }
        drainStep();
    }

    /**
     * Releases the engine's memory once its queue pair is quiet (I/O thread): in ERROR (the
     * disconnect completed), every posted send and receive accounted for by a completion, and the
     * last receive completion a flush — which the provider gives only when no peer copy into our
     * memory is under way (on hardware: the QP left RTS, so no DMA follows the flush). When every
     * receive completed but none after the error as a flush, one more receive is posted to be
     * flushed (the ib_drain_rq idiom).
     */
    private void drainStep() {
        if (released) {
            return;
        }
        boolean inError = !connection.isConnected() || qp.state() == QpState.ERROR;
        if (!inError || chain.inFlight() > 0 || drainReceivePosted || postedReceives() > 0) {
            return;
        }
        if (lastReceiveFlushed) {
            releaseAll();
            return;
        }
        try {
            RecvWr drain = recvBatch[0];
            drain.clearSges();
            drain.wrId(DRAIN_WR_ID);
            qp.postRecv(recvBatch, 0, 1);
            drainReceivePosted = true;
        } catch (RuntimeException e) {
            LOG.warn("engine to {}: could not post the drain receive ({}); destroying the queue pair "
                    + "and releasing its memory without a flush", peerName, e.toString());
            releaseAll();
        }
    }

    private int postedReceives() {
        int n = 0;
        for (ByteBuf b : recvBufs) {
            if (b != null) {
                n++;
            }
        }
        return n;
    }

    /**
     * Thread domain, every turn while draining: past {@link EngineConfig#drainTimeout()} without
     * the flushes (a broken provider, a frozen peer), the queue pair is destroyed — on hardware
     * ibv_destroy_qp ends its DMA — and the memory released, with a warning.
     */
    void checkDrainDeadline(long now) {
        if (!released && now - drainDeadline > 0) {
            LOG.warn("engine to {}: its queue pair gave no flush completions within {} ms of the failure "
                    + "({} sends and {} receives outstanding); destroying it and releasing its buffers (EngineConfig.withDrainTimeout)",
                    peerName, config.drainTimeout().toMillis(), chain.inFlight(), postedReceives() + (drainReceivePosted ? 1 : 0));
            releaseAll();
        }
    }

    private void releaseAll() {
        released = true;
        qp.close(); // after a quiet drain this only frees it; after a timeout it also stops it
        chain.abandonAll(releaser);
        for (int i = 0; i < recvBufs.length; i++) {
            if (recvBufs[i] != null) {
                recvBufs[i].release();
                recvBufs[i] = null;
            }
            if (recvKept[i] != null) {
                recvKept[i].release();
                recvKept[i] = null;
            }
        }
        rendezvous.releaseDestinations();
        pull.releaseSources(); // the peer can READ nothing any more: the queue pair is quiet or destroyed
        if (readables != null) {
            readables.pool().close(); // buffers the application still holds keep their memory until released
        }
        headerArea.release();
        destinations.pool().close(); // destinations the application still holds keep their memory until released
        domain.drained(this);
    }

    /** Closes the engine (I/O thread): sockets end normally, the connection is closed. */
    void close() {
        if (!failed) {
            for (EngineSocket s : new ArrayList<>(sockets.values())) {
                s.end(null);
            }
            sockets.clear();
            fail(new EngineException("engine to " + peerName + " closed"));
        }
    }

    /** Sockets open on this engine (I/O thread). */
    int socketCount() {
        return sockets.size();
    }

    @Override
    public String toString() {
        return "Engine{" + peerName + ", sockets=" + sockets.size() + ", credits=" + credits.available() + ", window=" + window.inFlight()
                + (released ? ", failed" : failed ? ", draining" : "") + "}";
    }
}
