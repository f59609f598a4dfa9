package io.reactorrdma.engine;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * A socket: one logical connection (one RSocket connection, one {@code RdmaConnection}) carried by
 * an engine that other sockets to the same peer share. Messages keep their order per socket.
 *
 * <p>Threads: {@link #offer}, {@link #consumed} and {@link #close} may be called from any thread;
 * everything else runs on the engine's I/O thread.
 *
 * <p>Flow control per socket: the sender may have at most {@code allowance} messages the peer's
 * subscriber has not yet taken, starting at the receiver's window (exchanged at connect); the
 * receiver grants more ({@code SOCKET_CREDIT}) as its subscriber takes messages, in batches of
 * half its window. Direct writes take no allowance. A slow consumer therefore stops its sender
 * across the wire, and the receiver never holds more than its window of unread messages per socket.
 */
public final class EngineSocket {

    private static final Logger LOG = Loggers.getLogger(EngineSocket.class);

    private static final VarHandle DELIVERED;
    private static final VarHandle GRANTED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            DELIVERED = lookup.findVarHandle(EngineSocket.class, "delivered", long.class);
            GRANTED = lookup.findVarHandle(EngineSocket.class, "granted", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * What the socket delivers to, on the I/O thread. A method that throws fails this socket only
     * (it ends with an {@link EngineException} carrying the throwable, the peer's socket with an
     * error); the engine and its other sockets go on.
     */
    public interface Inbound {
        /**
         * A message; ownership passes to the receiver (release it). If this throws, the message
         * counts as not taken: the socket releases it unless it was released already.
         */
        void onMessage(ByteBuf message);

        /** The socket ended: {@code error} is null for a normal close. */
        void onClose(Throwable error);

        /** The peer finished a {@link DirectWrite} into our memory; {@code lastFragmentBytes} of it came last. */
        default void onRemoteWrite(int lastFragmentBytes) {
        }
    }

    /**
     * Told, on the I/O thread, that queued messages left the socket's queue (room for more). A
     * method that throws fails this socket only, as for {@link Inbound}.
     */
    public interface OutboundListener {
        /**
         * The engine took {@code message} (the {@link ByteBuf} or {@link DirectWrite} given to
         * {@link #offer}) from the queue as the socket's {@code ordinal}-th (from 1). Offers from
         * several threads reach the queue in no order their callers can know; this says which one
         * each ordinal is, while the message is still the caller's object (before any copy or
         * release). Keep it short: it runs inside the engine's turn. A throw fails the socket.
         */
        default void onTaken(Object message, long ordinal) {
        }

        /**
         * {@code messages} more were handed to the queue pair (a large message once its last
         * fragment is posted) or rejected, in ordinal order: after {@code n} in all, messages 1..n
         * are gone.
         */
        void onSent(int messages);

        /**
         * The message with {@code ordinal} (see {@link #onTaken}) could not be sent or delivered
         * (too large, or the peer refused or reclaimed its destination:
         * {@link MessageRefusedException}); ownership of {@code message} passes (release it; it
         * may be a copy of what was offered); the socket goes on. A message sent by pull
         * rendezvous counted in {@link #onSent} when it was offered to the peer, so a refusal of
         * it (the peer could not allocate memory to pull it into) comes after that.
         */
        void onRejected(ByteBuf message, long ordinal, RuntimeException error);

        /**
         * The message with {@code ordinal} went by pull rendezvous: it counts as sent now (told in
         * {@link #onSent} right after this), and the peer has yet to read it; {@link #onPullSettled}
         * follows once the peer released it or refused it ({@link #onRejected} comes first then).
         */
        default void onPullPending(long ordinal) {
        }

        /** The pulled message with {@code ordinal} is settled: the peer read and released it, or refused it. */
        default void onPullSettled(long ordinal) {
        }
    }

    final Engine engine;
    final int id;
    /**
     * {@link ByteBuf} messages and {@link DirectWrite}s, in order: many producers, the I/O thread
     * consumes. A linked array queue (Netty's JCTools MPSC), so an offer allocates no node, and its
     * size is read from its indices, so no counter is kept beside it.
     */
    private final Queue<Object> outbound = PlatformDependent.newMpscQueue();
    /** Queued for the I/O thread's scheduling turn (ready or parked). */
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final AtomicInteger consumedNotGranted = new AtomicInteger();
    /** A grant task is on its way to the I/O thread; cleared by it before it takes what was consumed. */
    private final AtomicBoolean grantScheduled = new AtomicBoolean();
    /** Built once: scheduling a grant allocates nothing. */
    private final Runnable grantTask = this::grantConsumed;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Inbound inbound;
    private volatile OutboundListener outboundListener;
    /** I/O thread: messages we may still send before the peer grants more. */
    private int allowance;
    /**
     * Messages handed to the receiver, and allowance granted back to the peer: written only by the
     * I/O thread (plain read, opaque write: no fence on the per-message path), read opaquely by
     * {@link #receiveHeadroom} on any thread.
     */
    private long delivered;
    private long granted;
    /** I/O thread: messages taken from the queue so far; the last one's ordinal. */
    private long taken;
    /** I/O thread: the rendezvous message or direct write in progress, which the socket's later messages wait behind. */
    private OutboundMessage current;
    /** I/O thread: when a graceful close gives up waiting for the queue to drain. */
    private long closeDeadline;
    /** I/O thread: messages that arrived before an inbound was attached. */
    private java.util.ArrayDeque<ByteBuf> early;
    /**
     * I/O thread: while a message of the peer is being pulled, what arrived after it waits here in
     * the socket's order — pulls ({@link Pull.Inbound}), messages, direct-write notices (Integer)
     * and a graceful close ({@link #CLOSE_AFTER_PULLS}). Null until the first pull.
     */
    private java.util.ArrayDeque<Object> ordered;
    private static final Object CLOSE_AFTER_PULLS = new Object();
    /** Set by {@link #end} before it drains the queue; volatile so a racing {@link #offer} sees it. */
    private volatile boolean ended;

    EngineSocket(Engine engine, int id, int allowance) {
        this.engine = engine;
        this.id = id;
        this.allowance = allowance;
    }

    public int id() {
        return id;
    }

    /** The peer this socket talks to, for messages. */
    public String peer() {
        return engine.peerName();
    }

    /** The peer's address. */
    public java.net.InetSocketAddress remoteAddress() {
        return engine.remoteAddress();
    }

    /**
     * A buffer of {@code size} bytes in remote-writable registered memory: hand its address and
     * rkey ({@code RegisteredByteBufAllocator.addressOf / regionOf}) to the peer, which can then
     * {@link DirectWrite} into it.
     */
    public ByteBuf allocateRemoteWritable(int size) {
        return engine.allocateRemoteWritable(size);
    }

    /**
     * A buffer of {@code size} bytes the peer may READ (this engine's readable pool): a message
     * written into it and sent on a connection where pull rendezvous is on goes, when larger than
     * the peer's eager size, without a destination round trip. Only this peer can read the pool.
     *
     * @throws IllegalStateException when pull rendezvous is not on for this connection
     */
    public ByteBuf allocateRemoteReadable(int size) {
        return engine.allocateRemoteReadable(size);
    }

    /** The allocator of {@link #allocateRemoteReadable} (any thread), or null when pull rendezvous is not on for this connection. */
    public io.netty.buffer.ByteBufAllocator remoteReadableAllocator() {
        return engine.remoteReadableAllocator();
    }

    /** The largest payload this socket sends eagerly (one SEND into the peer's receive buffer); larger ones go by rendezvous. */
    public int peerEagerSize() {
        return engine.peerEagerSize();
    }

    /** The largest message this socket sends: the smaller of this side's and the peer's maximum message size. */
    public int maxMessageSize() {
        return engine.maxMessageSize();
    }

    /** Attaches the receiver; messages that arrived before are delivered first (on the I/O thread). */
    public void inbound(Inbound in) {
        this.inbound = in;
        engine.domain.execute(this::flushEarly);
    }

    public void outboundListener(OutboundListener l) {
        this.outboundListener = l;
    }

    /** Messages queued and not yet handed to the engine (a snapshot; allocation-free). */
    public int queued() {
        return outbound.size();
    }

    /**
     * Queues a message (ownership passes to the socket). The caller bounds how many it queues
     * (the Reactive Streams bridge requests only what {@link OutboundListener#onSent} frees).
     *
     * @return false if the socket is closed; the message was released
     */
    public boolean offer(ByteBuf message) {
        if (closed.get()) {
            message.release();
            return false;
        }
        return enqueue(message);
    }

    /**
     * Queues a direct write into a remote buffer the caller knows, in order with the socket's
     * messages (ownership of the payload passes). It takes none of the message allowance: the
     * peer holds nothing for it (the bytes are in memory it granted), so nothing would return it.
     *
     * @return false if the socket is closed; the payload was released
     */
    public boolean offer(DirectWrite write) {
        if (closed.get()) {
            write.payload().release();
            return false;
        }
        return enqueue(write);
    }

    /**
     * Queues a message or direct write that passed the closed check. If it raced with {@link #end}
     * (the queue was drained before the element went in, and an ended socket is served no more),
     * the I/O thread, the queue's only consumer, releases what is left (an atomic poll each, so
     * once each) and the offer reports the socket closed.
     */
    private boolean enqueue(Object element) {
        outbound.add(element);
        if (ended) {
            engine.domain.execute(this::releaseQueued);
            return false;
        }
        engine.socketReady(this);
        return true;
    }

    /**
     * Releases what is queued; runs only once the socket has ended (no other poll follows then).
     * Locked: the queue allows one consumer at a time, and once the thread domain has terminated
     * its tasks run on whichever threads hand them over.
     */
    private void releaseQueued() {
        synchronized (outbound) {
            Object o;
            while ((o = outbound.poll()) != null) {
                (o instanceof DirectWrite ? ((DirectWrite) o).payload() : (ByteBuf) o).release();
            }
        }
    }

    /** This side's per-socket receive window ({@code EngineConfig.socketMessageWindow}): the most unread messages it holds. */
    public int receiveWindow() {
        return engine.config.socketMessageWindow();
    }

    /**
     * Messages the peer may still send on this socket before we grant it more: the receive window
     * less what arrived and was not yet granted back (unread, or read and waiting for the next
     * batch of grants). Any thread, allocation-free; a snapshot of two counters the I/O thread
     * writes, so it may lag by one message, and is kept within {@code [0, receiveWindow()]}.
     */
    public int receiveHeadroom() {
        int window = receiveWindow();
        long held = (long) DELIVERED.getOpaque(this) - (long) GRANTED.getOpaque(this);
        return (int) Math.max(0, Math.min(window, window - held));
    }

    /** I/O thread: {@code messages} more were granted to the peer. */
    void granted(int messages) {
        GRANTED.setOpaque(this, granted + messages); // the I/O thread is the only writer
    }

    /** I/O thread: granted messages not yet told to the peer (they ride on our next DATA, or go as SOCKET_CREDIT). */
    private int untoldGrant;

    /** I/O thread: whether this socket is in its engine's queue of untold grants (at most once). */
    private boolean grantQueued;

    /**
     * I/O thread: adds {@code messages} to the grant the peer has not been told of; true when the
     * socket must join its engine's queue of untold grants (it is not in it yet).
     */
    boolean addUntoldGrant(int messages) {
        untoldGrant += messages;
        if (grantQueued) {
            return false;
        }
        grantQueued = true;
        return true;
    }

    /** I/O thread: the engine took this socket off its queue of untold grants. */
    void grantDequeued() {
        grantQueued = false;
    }

    /** I/O thread: takes the grant the peer has not been told of (0 when none). */
    int takeUntoldGrant() {
        int g = untoldGrant;
        untoldGrant = 0;
        return g;
    }

    /**
     * The receiver's subscriber took {@code n} messages: grant the peer more, in batches of at
     * least half the window. The I/O thread takes the whole count when it runs the grant, so what
     * was consumed while the task was on its way goes in the same grant.
     */
    public void consumed(int n) {
        int half = Math.max(1, engine.config.socketMessageWindow() / 2);
        if (consumedNotGranted.addAndGet(n) >= half && grantScheduled.compareAndSet(false, true)) {
            engine.domain.execute(grantTask);
        }
    }

    /** I/O thread: grants what was consumed so far (nothing when an earlier task took it already). */
    private void grantConsumed() {
        grantScheduled.set(false); // first: a consumer that adds after the take below schedules again
        int total = consumedNotGranted.getAndSet(0);
        if (total > 0) {
            engine.grant(this, total);
        }
    }

    /**
     * Closes the socket gracefully: no new messages are taken, those already queued are sent, then
     * the peer's socket ends normally (messages still queued after {@link Engine#CLOSE_DRAIN_NANOS}
     * — a peer that reads nothing — are dropped).
     */
    public void close() {
        if (closed.compareAndSet(false, true)) {
            engine.domain.execute(() -> engine.closeWhenDrained(this));
        }
    }

    public boolean isClosed() {
        return closed.get();
    }

    // ---------------------------------------------------------------- I/O thread

    /** Any thread: queues the socket for a scheduling turn unless it is queued already; true when this call did. */
    boolean markScheduled() {
        return scheduled.compareAndSet(false, true);
    }

    /** The socket left the scheduler's queues (nothing to send, or it ended); an offer queues it again. */
    void unschedule() {
        scheduled.set(false);
    }

    /** Whether the peer lets this socket send one more message now. */
    boolean hasAllowance() {
        return allowance > 0;
    }

    /** One message went (or started by rendezvous): it takes one message of the peer's allowance. */
    void takeAllowance() {
        allowance--;
    }

    /** A message that took allowance was not delivered: the peer's subscriber never sees it, so it comes back. */
    void returnAllowance() {
        allowance++;
    }

    /** The peer granted {@code messages} more (SOCKET_CREDIT). */
    void addAllowance(int messages) {
        allowance += messages;
    }

    /** The rendezvous message or direct write in progress, or null. */
    OutboundMessage inProgress() {
        return current;
    }

    /** {@code m} becomes the message in progress: the socket's later messages wait behind it. */
    void startMessage(OutboundMessage m) {
        current = m;
    }

    /** The message in progress has its last fragment posted: the next one may go. */
    void finishMessage() {
        current = null;
    }

    /** {@code m} will not be delivered: if it is the one in progress, the socket moves on. */
    void dropMessage(OutboundMessage m) {
        if (current == m) {
            current = null;
        }
    }

    /** A graceful close waits for the queue to drain until {@code deadline} (System.nanoTime()). */
    void closeBy(long deadline) {
        closeDeadline = deadline;
    }

    /** Whether a graceful close waited past its deadline. */
    boolean closeOverdue(long now) {
        return now - closeDeadline > 0;
    }

    /** The next queued {@link ByteBuf} or {@link DirectWrite}. */
    Object peekOutbound() {
        return outbound.peek();
    }

    /** Takes the head of the queue (I/O thread): it becomes the socket's next ordinal, and the listener hears which it was. */
    Object pollOutbound() {
        Object o = outbound.poll();
        if (o != null) {
            taken++;
            OutboundListener l = outboundListener;
            if (l != null) {
                try {
                    l.onTaken(o, taken);
                } catch (RuntimeException | Error e) {
                    // the engine is in the middle of preparing this message: the socket fails after the turn
                    engine.domain.execute(() -> callbackFailed("onTaken", e));
                }
            }
        }
        return o;
    }

    /** The ordinal of the message taken last (I/O thread). */
    long lastTaken() {
        return taken;
    }

    boolean hasOutbound() {
        return current != null || !outbound.isEmpty();
    }

    void sent(int n) {
        OutboundListener l = outboundListener;
        if (l != null) {
            try {
                l.onSent(n);
            } catch (RuntimeException | Error e) {
                callbackFailed("onSent", e);
            }
        }
    }

    void remoteWrite(int lastFragmentBytes) {
        if (ordered != null && !ordered.isEmpty()) {
            ordered.add(lastFragmentBytes); // boxed: only behind a pull
            return;
        }
        remoteWriteNow(lastFragmentBytes);
    }

    private void remoteWriteNow(int lastFragmentBytes) {
        Inbound in = inbound;
        if (in != null && !ended) {
            try {
                in.onRemoteWrite(lastFragmentBytes);
            } catch (RuntimeException | Error e) {
                callbackFailed("onRemoteWrite", e);
            }
        }
    }

    /** I/O thread: the message just taken ({@link #lastTaken}) goes by pull. */
    void pullPending() {
        OutboundListener l = outboundListener;
        if (l != null) {
            try {
                l.onPullPending(taken);
            } catch (RuntimeException | Error e) {
                callbackFailed("onPullPending", e);
            }
        }
    }

    /** I/O thread: the pulled message {@code ordinal} was released or refused by the peer. */
    void pullSettled(long ordinal) {
        OutboundListener l = outboundListener;
        if (l != null) {
            try {
                l.onPullSettled(ordinal);
            } catch (RuntimeException | Error e) {
                callbackFailed("onPullSettled", e);
            }
        }
    }

    void rejected(ByteBuf message, long ordinal, RuntimeException error) {
        OutboundListener l = outboundListener;
        if (l != null) {
            try {
                l.onRejected(message, ordinal, error);
            } catch (RuntimeException | Error e) {
                releaseIfHeld(message);
                callbackFailed("onRejected", e);
            }
        } else {
            message.release();
        }
    }

    /** A message of the peer: delivered now, or after the pulls it arrived behind. */
    void deliver(ByteBuf message) {
        if (ordered != null && !ordered.isEmpty()) {
            ordered.add(message);
            return;
        }
        deliverNow(message);
    }

    /** A message of the peer is being pulled: what arrives after it waits until it is delivered. */
    void awaitPull(Pull.Inbound p) {
        if (ordered == null) {
            ordered = new java.util.ArrayDeque<>();
        }
        ordered.add(p);
    }

    /** Whether messages of the peer wait behind a pull. */
    boolean holdsPulls() {
        return ordered != null && !ordered.isEmpty();
    }

    /** The peer closed the socket gracefully while messages were being pulled: it ends once they are delivered. */
    void endAfterPulls() {
        ordered.add(CLOSE_AFTER_PULLS);
    }

    /** A pull of this socket completed: it and what waited behind it are delivered, in order, up to the next pull not complete. */
    void pullComplete() {
        drainOrdered();
    }

    /** A pull of this socket was refused (nothing to deliver): what waited behind it may go. */
    void pullGivenUp() {
        drainOrdered();
    }

    private void drainOrdered() {
        Object o;
        while (!ended && (o = ordered.peek()) != null) {
            if (o instanceof Pull.Inbound) {
                Pull.Inbound p = (Pull.Inbound) o;
                if (!p.abandoned && !p.complete()) {
                    return;
                }
                ordered.poll();
                if (!p.abandoned) {
                    deliverNow(p.takeMessage());
                }
            } else if (o instanceof ByteBuf) {
                ordered.poll();
                deliverNow((ByteBuf) o);
            } else if (o instanceof Integer) {
                ordered.poll();
                remoteWriteNow((Integer) o);
            } else {
                ordered.poll();
                engine.closedByPeer(this);
                return;
            }
        }
    }

    private void deliverNow(ByteBuf message) {
        DELIVERED.setOpaque(this, delivered + 1); // the only writer; counted even if released unread (its grant comes with the consumption)
        Inbound in = inbound;
        if (ended) {
            message.release();
        } else if (in == null) {
            if (early == null) {
                early = new java.util.ArrayDeque<>();
            }
            early.add(message);
        } else {
            handOver(in, message);
        }
    }

    private void flushEarly() {
        Inbound in = inbound;
        if (early != null && in != null) {
            ByteBuf m;
            while ((m = early.poll()) != null) {
                if (ended) {
                    m.release();
                } else {
                    handOver(in, m);
                }
            }
        }
    }

    private void handOver(Inbound in, ByteBuf message) {
        try {
            in.onMessage(message);
        } catch (RuntimeException | Error e) {
            releaseIfHeld(message);
            callbackFailed("onMessage", e);
        }
    }

    private static void releaseIfHeld(ByteBuf message) {
        if (message.refCnt() > 0) {
            message.release();
        }
    }

    /**
     * An application callback threw: this socket fails (the peer's socket ends with an error), the
     * engine and its other sockets go on. Never lets the throwable reach the I/O thread's loop,
     * which would lose the rest of a completion batch.
     */
    private void callbackFailed(String callback, Throwable e) {
        engine.closeSocket(this, new EngineException("socket " + id + " to " + engine.peerName() + " closed: its " + callback
                + " callback threw " + e, e), true);
    }

    /** Ends the socket on the I/O thread: releases what it holds and tells the receiver. */
    void end(Throwable error) {
        if (ended) {
            return;
        }
        flushEarly();
        ended = true;
        closed.set(true);
        releaseQueued();
        ByteBuf m;
        if (early != null) {
            while ((m = early.poll()) != null) {
                m.release();
            }
        }
        if (ordered != null) {
            Object o;
            while ((o = ordered.poll()) != null) {
                if (o instanceof ByteBuf) {
                    ((ByteBuf) o).release();
                } else if (o instanceof Pull.Inbound) {
                    engine.abandonPull((Pull.Inbound) o); // no more READs; the peer releases its source at our notice
                }
            }
        }
        if (current != null) {
            engine.abandon(current); // tells the peer to free the destination of a rendezvous in progress
            current = null;
        }
        Inbound in = inbound;
        if (in != null) {
            try {
                in.onClose(error);
            } catch (RuntimeException | Error e) {
                // the socket has ended already; nothing is left to fail, and the I/O thread must go on
                LOG.warn("the onClose callback of " + this + " threw " + e, e);
            }
        }
    }

    boolean isEnded() {
        return ended;
    }

    @Override
    public String toString() {
        return "EngineSocket{" + id + " to " + engine.peerName() + (closed.get() ? ", closed" : "") + "}";
    }
}
