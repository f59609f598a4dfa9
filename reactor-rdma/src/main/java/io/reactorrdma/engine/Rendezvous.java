package io.reactorrdma.engine;

import io.reactorrdma.config.EngineConfig;
import io.netty.buffer.ByteBuf;
import io.netty.util.collection.IntObjectHashMap;
import io.reactorrdma.memory.Chunk;
import io.reactorrdma.memory.RegisteredByteBufAllocator;

import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * The rendezvous state machine of one engine, both directions (docs/PROTOCOL.md, "Rendezvous"):
 * as a sender, the messages that wait for the peer's answer and those whose WRITEs are under
 * way; as a receiver, the destinations it answered, the requests that wait for room under
 * {@link EngineConfig#maxPinnedDestinationBytes}, and their revocation. The engine posts; this
 * class decides what a rendezvous message means and what goes back. I/O thread only.
 */
final class Rendezvous {

    /**
     * Most rendezvous requests of a peer waiting for room: a sender has one per socket in progress,
     * so only a broken peer comes near it (each waits as a small object on our heap).
     */
    static final int MAX_WAITING_REQUESTS = 65_536;

    /** What the state machine needs of its engine. */
    interface Host {
        /** Queues a control message for the next scheduling turn. */
        void queueControl(ControlMessage c);

        /** The socket has something to send again (a no-op while it is parked: the next turn retries it). */
        void makeReady(EngineSocket s);

        /** The open socket with this id, or null. */
        EngineSocket socket(int id);

        /** RNDV_REFUSE of a token that is not a WRITE rendezvous of ours: true when it was one offered to be pulled. */
        boolean pullRefused(int token, int length, String text);
    }

    private final Host host;
    private final EngineConfig config;
    private final String peerName;
    private final EngineMetrics metrics;
    /** This peer's own remote-writable memory: the rkeys it is given cover no other peer's buffers. */
    private final RegisteredByteBufAllocator destinations;
    /** EngineConfig.rendezvousWriteTimeout in nanoseconds (read per rendezvous answered). */
    private final long writeTimeoutNanos;

    // sender
    private final IntObjectHashMap<OutboundMessage> awaitingAnswer = new IntObjectHashMap<>();
    /** Answered rendezvous messages of ours whose last fragment is not posted yet, by token (a revocation finds them here). */
    private final IntObjectHashMap<OutboundMessage> writing = new IntObjectHashMap<>();
    private int nextToken = 1;

    // receiver
    private final IntObjectHashMap<InboundRendezvous> receiving = new IntObjectHashMap<>();
    /**
     * The peer's rendezvous requests that wait for {@link #pinnedBytes} to make room, by token in
     * arrival order: answered from the head, found by token at once by each new request's token
     * check and each abandon (a scan cost every request up to {@link #MAX_WAITING_REQUESTS} steps on
     * the I/O thread). A rare path (the destination bound is full), so a boxed key costs nothing that matters.
     */
    private final LinkedHashMap<Integer, WaitingRequest> waitingForRoom = new LinkedHashMap<>();
    /** Bytes of the destinations in {@link #receiving}: at most EngineConfig.maxPinnedDestinationBytes (or one larger destination). */
    private long pinnedBytes;
    private long nextRevocationCheck = System.nanoTime();

    /** A destination we answered a rendezvous request with. */
    private static final class InboundRendezvous {
        final EngineSocket socket;
        final ByteBuf destination;
        final int size;
        final int socketId;
        final int token;
        /** When the last WRITE is due; once revoked, when the peer must have given the token up. */
        long deadline;
        boolean revoked;

        InboundRendezvous(EngineSocket socket, ByteBuf destination, int size, int socketId, int token, long deadline) {
            this.socket = socket;
            this.destination = destination;
            this.size = size;
            this.socketId = socketId;
            this.token = token;
            this.deadline = deadline;
        }
    }

    /** A rendezvous request of the peer not answered yet: the destinations we hold are at their bound. */
    private record WaitingRequest(int socketId, int size, int token) {
    }

    Rendezvous(Host host, EngineConfig config, String peerName, EngineMetrics metrics, RegisteredByteBufAllocator destinations) {
        this.host = host;
        this.config = config;
        this.peerName = peerName;
        this.metrics = metrics;
        this.destinations = destinations;
        this.writeTimeoutNanos = config.rendezvousWriteTimeout().toNanos();
    }

    // ------------------------------------------------------------------ sender

    /**
     * A message of socket {@code s} goes by rendezvous: it gets a token and waits for the peer's
     * answer as the socket's message in progress. The caller posts the RNDV_REQUEST.
     */
    OutboundMessage begin(EngineSocket s, ByteBuf payload) {
        int token = nextToken();
        OutboundMessage m = new OutboundMessage(s, payload, token);
        awaitingAnswer.put(token, m);
        s.startMessage(m);
        return m;
    }

    /** A new token, for a WRITE rendezvous or a pull (one space: the peer's replies name either). */
    int nextToken() {
        int token = nextToken;
        nextToken = (nextToken + 1) & ~DirectWrite.IMM_FLAG; // rendezvous tokens never have the direct-write bit
        if (nextToken == 0) {
            nextToken = 1;
        }
        return token;
    }

    /** The last fragment of {@code m} is posted: no revocation can fail it any more. */
    void lastFragmentPosted(OutboundMessage m) {
        writing.remove(m.token);
    }

    /**
     * A socket ended with {@code m} in progress: the peer is told to free the destination — after
     * the fragments already posted, none follows. The payload was released by the caller.
     */
    void abandon(OutboundMessage m) {
        if (writing.remove(m.token) == null) {
            // not answered yet: kept until the peer's answer or refusal, which is then dropped
            m.abandoned = true;
        }
        host.queueControl(new ControlMessage(WireHeader.RNDV_ABANDON, m.socket.id, 0, m.token, 0, 0));
    }

    void onAnswer(ByteBuf buf, int base, int n, int length, int token) {
        if (n < WireHeader.RNDV_ANSWER_SIZE) {
            throw new ProtocolException(peerName + " sent a " + n + "-byte rendezvous answer");
        }
        OutboundMessage m = awaitingAnswer.remove(token);
        if (m == null) {
            throw new ProtocolException(peerName + " answered rendezvous token " + token + ", which we never asked about");
        }
        if (length != m.size) {
            m.release();
            throw new ProtocolException(peerName + " answered for " + length + " bytes, the message has " + m.size);
        }
        if (m.abandoned) {
            return; // our RNDV_ABANDON, already on its way, frees the destination
        }
        writing.put(token, m);
        m.remoteAddress = buf.getLongLE(base + WireHeader.OFF_ADDRESS);
        m.rkey = buf.getIntLE(base + WireHeader.OFF_RKEY);
        m.answered = true; // the socket is parked; the next turn retries it
    }

    void onRefused(ByteBuf buf, int base, int n, int length, int token) {
        if (n < WireHeader.RNDV_REFUSE_SIZE) {
            throw new ProtocolException(peerName + " sent a " + n + "-byte rendezvous refusal");
        }
        int reason = buf.getIntLE(base + WireHeader.OFF_REFUSE_REASON);
        int textBytes = buf.getUnsignedShortLE(base + WireHeader.OFF_REFUSE_TEXT_LENGTH);
        if (WireHeader.RNDV_REFUSE_SIZE + textBytes > n
                || (reason != WireHeader.REFUSED_NO_MEMORY && reason != WireHeader.REFUSED_ABANDONED)) {
            throw new ProtocolException(peerName + " sent a rendezvous refusal with reason " + reason + " and " + textBytes
                    + " bytes of text in " + n + " bytes");
        }
        OutboundMessage m = awaitingAnswer.remove(token);
        if (m == null) {
            if (reason == WireHeader.REFUSED_NO_MEMORY
                    && host.pullRefused(token, length, buf.toString(base + WireHeader.OFF_REFUSE_TEXT, textBytes,
                            java.nio.charset.StandardCharsets.UTF_8))) {
                return;
            }
            throw new ProtocolException(peerName + " refused rendezvous token " + token + ", which we never asked about");
        }
        if (length != m.size) {
            m.release();
            throw new ProtocolException(peerName + " refused " + length + " bytes for token " + token + ", the message has " + m.size);
        }
        if (m.abandoned) {
            return; // the reply to our request; we gave the message up meanwhile
        }
        if (reason != WireHeader.REFUSED_NO_MEMORY) {
            m.release();
            throw new ProtocolException(peerName + " refused token " + token + " as abandoned, which we did not abandon");
        }
        String text = buf.toString(base + WireHeader.OFF_REFUSE_TEXT, textBytes, java.nio.charset.StandardCharsets.UTF_8);
        fail(m, new MessageRefusedException(peerName + " could not allocate " + sizeText(m.size) + " (" + m.size
                + " bytes) for a message: " + (text.isEmpty() ? "no reason given" : text)
                + "; the message was not sent, the connection goes on."
                + " Retry later, send it in smaller messages, or give the peer more registered memory (its region limit, /dev/shm space,"
                + " memlock limit, -XX:MaxDirectMemorySize)"));
    }

    /** The peer revoked the destination of one of our messages: fail it unless it is done, and give the token up. */
    void onRevoked(int socketId, int token) {
        OutboundMessage m = writing.remove(token);
        if (m == null && awaitingAnswer.containsKey(token)) {
            throw new ProtocolException(peerName + " revoked rendezvous token " + token + " before answering it");
        }
        if (m != null) {
            fail(m, new MessageRefusedException(peerName + " reclaimed the " + sizeText(m.size) + " (" + m.size
                    + " bytes) destination of a message whose data did not arrive within its rendezvous write timeout"
                    + " (EngineConfig.withRendezvousWriteTimeout on the receiver); the message was not delivered, the connection goes on."
                    + " Find what stalled this sender (a blocked I/O thread, a full send window) or raise the peer's timeout"));
        }
        // Always: after the fragments already posted, no WRITE of this token follows (RC keeps the order).
        host.queueControl(new ControlMessage(WireHeader.RNDV_ABANDON, socketId, 0, token, 0, 0));
    }

    /**
     * A rendezvous message that will not be delivered: its socket moves on to the next message, its
     * sender learns why, and the allowance it took comes back (the peer's subscriber never sees it).
     */
    private void fail(OutboundMessage m, RuntimeException error) {
        EngineSocket s = m.socket;
        s.dropMessage(m);
        s.returnAllowance();
        s.rejected(m.takePayload(), m.ordinal, error);
        s.sent(1);
        if (s.hasOutbound()) {
            host.makeReady(s);
        }
    }

    /** The engine failed: payloads not posted yet are released; no revocation or fragment follows. */
    void dropOutbound() {
        for (OutboundMessage m : awaitingAnswer.values()) {
            m.release(); // its payload is posted only after the answer
        }
        awaitingAnswer.clear();
        writing.clear(); // their sockets end, which releases the payloads
    }

    static String sizeText(int bytes) {
        return bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? (bytes >> 20) + " MiB"
                : bytes >= 1024 && bytes % 1024 == 0 ? (bytes >> 10) + " KiB" : bytes + " bytes";
    }

    // ------------------------------------------------------------------ receiver

    void onRequest(int socketId, int size, int token) {
        if (size <= 0 || size > config.maxMessageSize()) {
            throw new ProtocolException(peerName + " asked to send a " + size + "-byte message; the maximum is " + config.maxMessageSize());
        }
        if (receiving.containsKey(token) || (!waitingForRoom.isEmpty() && waitingForRoom.containsKey(token))) {
            throw new ProtocolException(peerName + " reused rendezvous token " + token + " while it was in use");
        }
        if (waitingForRoom.isEmpty() && hasRoomFor(size)) {
            answer(socketId, size, token);
        } else if (waitingForRoom.size() < MAX_WAITING_REQUESTS) {
            waitingForRoom.put(token, new WaitingRequest(socketId, size, token));
        } else {
            throw new ProtocolException(peerName + " has " + MAX_WAITING_REQUESTS + " rendezvous requests waiting for room already");
        }
    }

    /** Whether a destination of {@code size} bytes stays within the bound (one larger than the bound goes alone). */
    private boolean hasRoomFor(int size) {
        return pinnedBytes == 0 || pinnedBytes + size <= config.maxPinnedDestinationBytes();
    }

    private void answer(int socketId, int size, int token) {
        EngineSocket s = host.socket(socketId);
        ByteBuf dest;
        try {
            dest = destinations.directBuffer(size, size);
        } catch (RuntimeException | OutOfMemoryError e) {
            // Region table full, /dev/shm full, memlock, direct memory: this message only. The sender's
            // message fails with our reason; the connection and its other messages go on.
            String reason = e.getMessage() != null ? e.getMessage() : e.toString();
            host.queueControl(new ControlMessage(WireHeader.RNDV_REFUSE, socketId, size, token, WireHeader.REFUSED_NO_MEMORY, 0, reason));
            metrics.rendezvousRefusal();
            return;
        }
        Chunk chunk = RegisteredByteBufAllocator.regionOf(dest);
        receiving.put(token, new InboundRendezvous(s, dest, size, socketId, token, System.nanoTime() + writeTimeoutNanos));
        pinnedBytes += size;
        host.queueControl(new ControlMessage(WireHeader.RNDV_ANSWER, socketId, size, token,
                RegisteredByteBufAllocator.addressOf(dest), chunk.rkey()));
        metrics.rendezvous();
    }

    /** A destination left {@link #receiving}: its bytes no longer count, waiting requests may be answered. */
    private void unpin(InboundRendezvous r) {
        pinnedBytes -= r.size;
        if (waitingForRoom.isEmpty()) {
            return;
        }
        for (Iterator<WaitingRequest> it = waitingForRoom.values().iterator(); it.hasNext(); ) {
            WaitingRequest w = it.next();
            if (!hasRoomFor(w.size())) {
                break;
            }
            it.remove();
            answer(w.socketId(), w.size(), w.token());
        }
    }

    /**
     * The peer gives a token up (its socket ended, its send failed, or it answers our revocation):
     * no WRITE of that token follows this message on the queue pair, so the destination is free to
     * reuse. A request still waiting for room is refused instead (every request gets one reply).
     */
    void onAbandoned(int socketId, int token) {
        InboundRendezvous r = receiving.remove(token);
        if (r != null) {
            r.destination.release();
            unpin(r);
            return;
        }
        WaitingRequest w = waitingForRoom.isEmpty() ? null : waitingForRoom.remove(token);
        if (w != null) {
            host.queueControl(new ControlMessage(WireHeader.RNDV_REFUSE, w.socketId(), w.size(), token, WireHeader.REFUSED_ABANDONED, 0));
        }
        // else: finished or refused already; the abandon crossed our reply
    }

    /** The last WRITE of rendezvous {@code token} landed (its WRITE_WITH_IMM): the message goes to its socket. */
    void onWriteCompleted(int token) {
        InboundRendezvous r = receiving.remove(token);
        if (r == null) {
            throw new ProtocolException(peerName + " finished a WRITE for token " + token + ", which we never answered");
        }
        r.destination.writerIndex(r.size);
        metrics.received(r.size);
        if (r.socket != null && !r.socket.isEnded()) {
            r.socket.deliver(r.destination);
        } else {
            r.destination.release();
        }
        unpin(r);
    }

    /** Each scheduling turn: revokes overdue destinations when a check is due (cheap when nothing is held). */
    void checkRevocations() {
        if (!receiving.isEmpty()) {
            long now = System.nanoTime();
            if (now - nextRevocationCheck >= 0) {
                revokeOverdue(now);
            }
        }
    }

    /**
     * Revokes destinations whose last WRITE is overdue (RNDV_REVOKE; the memory stays ours, not
     * reused, until the peer's RNDV_ABANDON says no WRITE can follow) and fails the engine when a
     * peer has not given up a revoked token within another timeout.
     */
    private void revokeOverdue(long now) {
        long timeout = writeTimeoutNanos;
        nextRevocationCheck = now + Math.max(1_000_000L, timeout / 4);
        InboundRendezvous stuck = null;
        for (InboundRendezvous r : receiving.values()) {
            if (now - r.deadline < 0) {
                continue;
            }
            if (!r.revoked) {
                r.revoked = true;
                r.deadline = now + timeout;
                host.queueControl(new ControlMessage(WireHeader.RNDV_REVOKE, r.socketId, r.size, r.token, 0, 0));
                metrics.rendezvousRevocation();
            } else {
                stuck = r;
            }
        }
        if (stuck != null) {
            throw new EngineException(peerName + " neither wrote nor gave up the " + stuck.size + "-byte destination of rendezvous token "
                    + stuck.token + " within " + config.rendezvousWriteTimeout().toMillis() + " ms after we revoked it"
                    + " (EngineConfig.withRendezvousWriteTimeout); the connection is closed to free it");
        }
    }

    /** The queue pair is quiet (or destroyed): no WRITE can land in the destinations any more. */
    void releaseDestinations() {
        for (InboundRendezvous r : receiving.values()) {
            r.destination.release();
        }
        receiving.clear();
    }
}
