package io.reactorrdma.engine;

import io.reactorrdma.config.EngineConfig;
import io.netty.buffer.ByteBuf;
import io.netty.util.collection.IntObjectHashMap;

import java.util.ArrayDeque;

/**
 * The pull rendezvous of one engine, both directions (docs/PROTOCOL.md, "Pull rendezvous"): as a
 * sender, the sources it named to the peer and holds until the peer's PULL_DONE; as a receiver,
 * the messages it pulls (READs posted by the engine, fragment by fragment), the order they wait
 * in, and the tokens its next PULL_DONE releases. The engine posts; this class keeps the state.
 * I/O thread only.
 */
final class Pull {

    /** Most tokens one PULL_DONE carries (the rest go in the next). */
    static final int MAX_NOTICE_TOKENS = 256;
    /** Most pull requests of a peer not yet read: a sender has at most its allowance per socket in flight. */
    static final int MAX_PENDING_PULLS = 65_536;

    /** What the pull state needs of its engine. */
    interface Host {
        /** Queues a control message for the next scheduling turn. */
        void queueControl(ControlMessage c);

        /** The open socket with this id, or null. */
        EngineSocket socket(int id);

        /** A destination for a {@code size}-byte message (our readable pool for this peer); throws when there is no room. */
        ByteBuf pullDestination(int size);
    }

    /** A message of ours the peer may READ: held, unchanged, until the peer releases it. */
    private static final class Source {
        final EngineSocket socket;
        final ByteBuf payload;
        final int size;
        /** When the peer must have released it (System.nanoTime()). */
        final long deadline;
        /** The socket's ordinal of the message (for a refusal). */
        final long ordinal;

        Source(EngineSocket socket, ByteBuf payload, long deadline) {
            this.socket = socket;
            this.payload = payload;
            this.size = payload.readableBytes();
            this.deadline = deadline;
            this.ordinal = socket.lastTaken();
        }
    }

    /** A message of the peer we pull: its source, our destination, and how far the READs got. */
    static final class Inbound {
        final EngineSocket socket;
        final int token;
        final int size;
        /** Where byte 0 of the message would lie at the source: its first READ starts {@link #posted} bytes in. */
        final long sourceAddress;
        final int rkey;
        /**
         * Allocated (our readable pool for this peer) when its first READ is prepared, or as the request arrives
         * when it carried the message's head inline; null before and once released.
         */
        ByteBuf destination;
        /** Why no destination could be had for the head it carried: it is refused when its turn comes; null normally. */
        String refusal;
        /** Bytes handed to READs. */
        int posted;
        /** Bytes of READs that completed. */
        int read;
        int readsInFlight;
        /** Its socket ended, or the engine failed: no more READs, nothing delivered. */
        boolean abandoned;
        /** Its token is released (or the engine failed): nothing more to do but free the destination. */
        boolean finished;

        /** A message whose first {@code head} bytes came inline: its READs cover the rest, from {@code tailAddress}. */
        Inbound(EngineSocket socket, int token, int size, long tailAddress, int rkey, int head) {
            this.socket = socket;
            this.token = token;
            this.size = size;
            this.sourceAddress = tailAddress - head;
            this.rkey = rkey;
            this.posted = head;
            this.read = head;
        }

        /** Whether every byte arrived and it waits only for its turn in the socket's order. */
        boolean complete() {
            return read == size && !abandoned;
        }

        /** Hands the message over (once): its destination, holding every byte. */
        ByteBuf takeMessage() {
            ByteBuf d = destination;
            destination = null;
            return d;
        }
    }

    private final Host host;
    private final EngineConfig config;
    private final String peerName;
    private final EngineMetrics metrics;
    private final long sourceTimeoutNanos;

    // sender
    private final IntObjectHashMap<Source> exposed = new IntObjectHashMap<>();
    private long nextSourceCheck = System.nanoTime();

    // receiver
    private final IntObjectHashMap<Inbound> pulling = new IntObjectHashMap<>();
    /** Pulls with READs left to post, in arrival order (the head posts its fragments first). */
    private final ArrayDeque<Inbound> toRead = new ArrayDeque<>();
    /** READs posted and not retired, all pulls of this engine: at most the queue pair's limit. */
    private int readsInFlight;
    private int[] notice = new int[16];
    private int noticeCount;
    private boolean failed;

    Pull(Host host, EngineConfig config, String peerName, EngineMetrics metrics) {
        this.host = host;
        this.config = config;
        this.peerName = peerName;
        this.metrics = metrics;
        // a receiver that was given a source and neither read nor released it in this time is failed
        this.exposure = new io.reactorrdma.backpressure.ByteWindow(config.sendWindowBytes());
        this.sourceTimeoutNanos = 2 * config.rendezvousWriteTimeout().toNanos();
    }

    // ------------------------------------------------------------------ sender

    /**
     * Bytes of our messages the peer may still READ, bounded by the send window as WRITEs are: with
     * pull, a sender's bytes in flight are its exposed sources (the paper's per-engine bound against
     * incast holds either way). Its own window, not the engine's: that one bounds the READs this
     * engine posts, and sharing it could leave two engines each full of sources the other cannot read.
     */
    private final io.reactorrdma.backpressure.ByteWindow exposure;

    /** Takes {@code size} bytes of the exposure window for a message about to be named to the peer; false when it must wait. */
    boolean reserveExposure(int size) {
        return exposure.tryAcquire(size);
    }

    /** Gives back what {@link #reserveExposure} took for a message that goes another way after all. */
    void unreserveExposure(int size) {
        exposure.release(size);
    }

    /** Bytes of sources the peer may still READ (tests, diagnostics). */
    long exposedBytes() {
        return exposure.inFlight();
    }

    /**
     * The peer may READ {@code payload} (ours now) under {@code token} until its PULL_DONE names the
     * token; its bytes were reserved ({@link #reserveExposure}) and return when it is released.
     */
    void expose(int token, EngineSocket s, ByteBuf payload) {
        exposed.put(token, new Source(s, payload, System.nanoTime() + sourceTimeoutNanos));
    }

    /** Sources the peer may still READ. */
    int exposedCount() {
        return exposed.size();
    }

    /** PULL_DONE: each token's source is released (no READ of it follows on the queue pair). */
    void onDone(ByteBuf buf, int base, int n, int count) {
        if (count < 1 || count > MAX_NOTICE_TOKENS || WireHeader.SIZE + count * WireHeader.PULL_DONE_TOKEN != n) {
            throw new ProtocolException(peerName + " sent a PULL_DONE of " + count + " tokens in " + n + " bytes");
        }
        for (int i = 0; i < count; i++) {
            int token = buf.getIntLE(base + WireHeader.SIZE + i * WireHeader.PULL_DONE_TOKEN);
            Source src = exposed.remove(token);
            if (src == null) {
                throw new ProtocolException(peerName + " released pull token " + token + ", which we never offered or it released before");
            }
            exposure.release(src.size);
            src.payload.release();
            if (!src.socket.isEnded()) {
                src.socket.pullSettled(src.ordinal);
            }
        }
    }

    /**
     * RNDV_REFUSE of a token we offered to be pulled: nothing was read, the source is ours again.
     * The message was counted as sent when its request was posted, so the sender hears of it
     * through {@link EngineSocket.OutboundListener#onRejected} only.
     *
     * @return false when the token is not one of ours to be pulled
     */
    boolean onRefused(int token, int length, String text) {
        Source src = exposed.remove(token);
        if (src == null) {
            return false;
        }
        exposure.release(src.size);
        if (length != src.size) {
            src.payload.release();
            throw new ProtocolException(peerName + " refused " + length + " bytes for pull token " + token
                    + ", the message has " + src.size);
        }
        EngineSocket s = src.socket;
        s.returnAllowance();
        MessageRefusedException error = new MessageRefusedException(peerName + " could not allocate " + Rendezvous.sizeText(src.size)
                + " (" + src.size + " bytes) to pull a message into: " + (text.isEmpty() ? "no reason given" : text)
                + "; the message was not delivered, the connection goes on. Retry later, send it in smaller messages, or give the"
                + " peer more registered memory (its region limit, /dev/shm space, memlock limit, -XX:MaxDirectMemorySize)");
        if (s.isEnded()) {
            src.payload.release();
        } else {
            s.rejected(src.payload, src.ordinal, error);
            s.pullSettled(src.ordinal);
        }
        return true;
    }

    /** Each turn while sources are exposed: fails the engine when the peer holds one past its timeout. */
    void checkSources() {
        if (exposed.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        if (now - nextSourceCheck < 0) {
            return;
        }
        nextSourceCheck = now + Math.max(1_000_000L, sourceTimeoutNanos / 8);
        for (IntObjectHashMap.PrimitiveEntry<Source> e : exposed.entries()) {
            Source src = e.value();
            if (now - src.deadline >= 0) {
                throw new EngineException(peerName + " neither pulled nor released the " + src.size + "-byte message of pull token "
                        + e.key() + " within " + (sourceTimeoutNanos / 1_000_000) + " ms (twice EngineConfig.withRendezvousWriteTimeout);"
                        + " the connection is closed to take the memory back");
            }
        }
    }

    /** The queue pair is quiet (or destroyed): no READ of ours can follow, the sources go. */
    void releaseSources() {
        for (Source src : exposed.values()) {
            exposure.release(src.size);
            src.payload.release();
        }
        exposed.clear();
    }

    // ------------------------------------------------------------------ receiver

    /**
     * PULL_REQUEST: the peer offers a message to pull. Its first {@code head} bytes came in the
     * request ({@code headBytes} from {@code headIndex}, valid during this call only); the rest is
     * read from {@code address}.
     */
    void onRequest(int socketId, int size, int token, long address, int rkey, ByteBuf headBytes, int headIndex, int head) {
        if (size <= 0 || size > config.maxMessageSize()) {
            throw new ProtocolException(peerName + " offered a " + size + "-byte message to pull; the maximum is "
                    + config.maxMessageSize());
        }
        if (head < 0 || head >= size || head > WireHeader.PULL_HEAD_MAX) {
            throw new ProtocolException(peerName + " sent a pull request with a " + head + "-byte inline head for a " + size
                    + "-byte message (at most " + WireHeader.PULL_HEAD_MAX + " bytes, and less than the message)");
        }
        if (pulling.containsKey(token)) {
            throw new ProtocolException(peerName + " reused pull token " + token + " while it was in use");
        }
        if (pulling.size() >= MAX_PENDING_PULLS) {
            throw new ProtocolException(peerName + " has " + MAX_PENDING_PULLS + " messages waiting to be pulled already");
        }
        EngineSocket s = host.socket(socketId);
        if (s == null || s.isEnded()) {
            addNotice(token); // nobody to deliver to: release it unread
            return;
        }
        Inbound p = new Inbound(s, token, size, address, rkey, head);
        if (head > 0) {
            // the receive buffer goes back to the queue after this call: the head is kept in the destination now
            try {
                p.destination = host.pullDestination(size);
                p.destination.setBytes(0, headBytes, headIndex, head);
            } catch (RuntimeException | OutOfMemoryError e) {
                if (p.destination != null) {
                    p.destination.release();
                    p.destination = null;
                }
                p.refusal = e.getMessage() != null ? e.getMessage() : e.toString();
            }
        }
        pulling.put(token, p);
        s.awaitPull(p);
        toRead.add(p);
    }

    /** The next pull with READs to post, skipping those given up; null when none. */
    Inbound nextToRead() {
        Inbound p;
        while ((p = toRead.peek()) != null && p.abandoned) {
            toRead.poll();
        }
        return p;
    }

    /** The head of {@link #nextToRead} could not get a destination: it is refused (nothing was read). */
    void refuse(Inbound p, String reason) {
        toRead.poll();
        pulling.remove(p.token);
        p.finished = true;
        p.abandoned = true;
        host.queueControl(new ControlMessage(WireHeader.RNDV_REFUSE, p.socket.id, p.size, p.token,
                WireHeader.REFUSED_NO_MEMORY, 0, reason));
        metrics.rendezvousRefusal();
        p.socket.pullGivenUp();
    }

    /** A READ of {@code bytes} of {@code p} was prepared. */
    void readPrepared(Inbound p, int bytes) {
        p.posted += bytes;
        p.readsInFlight++;
        readsInFlight++;
        if (p.posted == p.size) {
            toRead.poll();
        }
    }

    /**
     * A READ of {@code p} retired (its slot's releaser): {@code success} false when it was
     * abandoned by a failing engine. The last one delivers in the socket's order.
     */
    void readRetired(Inbound p, int bytes, boolean success) {
        p.readsInFlight--;
        readsInFlight--;
        if (success && !failed) {
            p.read += bytes;
        }
        if (p.readsInFlight > 0) {
            return;
        }
        if (p.complete() && !failed) {
            pulling.remove(p.token);
            p.finished = true;
            p.destination.writerIndex(p.size);
            metrics.received(p.size);
            metrics.pulled();
            addNotice(p.token);
            p.socket.pullComplete();
        } else if (p.abandoned || failed) {
            finishAbandoned(p);
        }
    }

    /** {@code p}'s socket ended: no more READs; once those posted completed, the destination goes and the token is released. */
    void abandon(Inbound p) {
        if (p.abandoned) {
            return;
        }
        p.abandoned = true;
        if (p.readsInFlight == 0) {
            finishAbandoned(p);
        }
    }

    private void finishAbandoned(Inbound p) {
        if (p.destination != null) {
            p.destination.release();
            p.destination = null;
        }
        if (!p.finished) {
            p.finished = true;
            pulling.remove(p.token);
            if (!failed) {
                addNotice(p.token);
            }
        }
    }

    private void addNotice(int token) {
        if (noticeCount == notice.length) {
            notice = java.util.Arrays.copyOf(notice, notice.length * 2);
        }
        notice[noticeCount++] = token;
    }

    boolean hasNotice() {
        return noticeCount > 0;
    }

    /** Tokens released and not yet told to the peer. */
    int noticeCount() {
        return noticeCount;
    }

    /**
     * Writes up to {@code max} released tokens into {@code buf} (absolute, little-endian) and
     * takes them from the batch.
     *
     * @return how many were written
     */
    int takeNotice(ByteBuf buf, int index, int max) {
        int n = Math.min(max, Math.min(noticeCount, MAX_NOTICE_TOKENS));
        for (int i = 0; i < n; i++) {
            buf.setIntLE(index + i * WireHeader.PULL_DONE_TOKEN, notice[i]);
        }
        System.arraycopy(notice, n, notice, 0, noticeCount - n);
        noticeCount -= n;
        return n;
    }

    /** READs posted and not retired, on this engine's queue pair. */
    int readsInFlight() {
        return readsInFlight;
    }

    /** Whether a pull waits for READs to be posted (window, budget, the READ limit or chain slots). */
    boolean hasReadsToPost() {
        return nextToRead() != null;
    }

    /**
     * The engine failed: nothing more is read, delivered or noticed. Destinations without READs in
     * flight go now, the others when those READs retire (a flush, or the drain's end).
     */
    void fail() {
        failed = true;
        toRead.clear();
        noticeCount = 0;
        for (Inbound p : pulling.values()) {
            p.abandoned = true;
            if (p.readsInFlight == 0 && p.destination != null) {
                p.destination.release();
                p.destination = null;
            }
            p.finished = true;
        }
        pulling.clear();
    }
}
