package io.reactorrdma;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.internal.PlatformDependent;
import io.reactorrdma.backpressure.CapacityGatedSubscriber;
import io.reactorrdma.engine.EngineSocket;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.publisher.SignalType;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;
import reactor.util.context.Context;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.channels.ClosedChannelException;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicReference;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * One logical RDMA connection (an engine socket): an {@link RdmaInbound} and an
 * {@link RdmaOutbound}. Connections to the same peer from one thread domain share one queue pair.
 * Dispose it to close; {@link #onDispose()} completes when it is closed from either side.
 */
public final class RdmaConnection implements RdmaInbound, Disposable {

    private static final Logger LOG = Loggers.getLogger(RdmaConnection.class);

    private final EngineSocket socket;
    private final ByteBufAllocator alloc;
    private final InboundMessages inbound;
    private final Sinks.Empty<Void> closed = Sinks.empty();
    /** Why the connection ended when it did not end normally; set before {@link #closed} completes. */
    private volatile Throwable failure;
    /** Not auto-cancelled: a subscriber that leaves does not end it for later ones. */
    private final Sinks.Many<Integer> remoteWrites = Sinks.many().multicast().onBackpressureBuffer(Queues.SMALL_BUFFER_SIZE, false);
    private final AtomicReference<Send> activeSend = new AtomicReference<>();
    private volatile Runnable sentListener;
    /** Tests: runs in a send just before it offers a message, where a {@code sendNow} on another thread can overtake it. */
    volatile Runnable beforeSendOffer;
    private final int sendWindow;
    /**
     * Messages the engine has sent or refused (its {@code onSent} count: ordinals 1..taken are
     * gone): written only on the I/O thread, with a release store (no full fence per message),
     * read with a volatile load ({@link #taken()}).
     */
    private long taken;
    private static final VarHandle TAKEN;

    static {
        try {
            TAKEN = MethodHandles.lookup().findVarHandle(RdmaConnection.class, "taken", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * @param owner told when the connection holds no unread message any more ({@code untrack}); it
     *              releases unread messages when it is disposed first
     */
    RdmaConnection(EngineSocket socket, RdmaResources owner) {
        this.socket = socket;
        this.alloc = new ConnectionAllocator(owner.allocator().byteBufAllocator(),
                socket.remoteReadableAllocator(), socket.peerEagerSize());
        this.sendWindow = owner.engineConfig().sendQueueDepth();
        this.inbound = new InboundMessages(socket::consumed, socket.peer(), () -> untrackFrom(owner));
        owner.track(inbound);
        socket.outboundListener(new EngineSocket.OutboundListener() {
            @Override
            public void onTaken(Object message, long ordinal) {
                Send s = activeSend.get();
                if (s != null) {
                    s.onTaken(message, ordinal);
                }
            }

            @Override
            public void onSent(int messages) {
                TAKEN.setRelease(RdmaConnection.this, taken + messages); // the I/O thread is the only writer
                Runnable l = sentListener;
                if (l != null) {
                    l.run();
                }
                Send s = activeSend.get();
                if (s != null) {
                    // A send's end (upstreamDone, then taken) and this (taken, then upstreamDone) must not both
                    // miss the other's write: a full fence, paid only while a send() is running, not by sendNow
                    VarHandle.fullFence();
                    s.sent();
                }
            }

            @Override
            public void onPullPending(long ordinal) {
                Send s = activeSend.get();
                if (s != null && s.owns(ordinal)) {
                    s.pullPending();
                }
            }

            @Override
            public void onPullSettled(long ordinal) {
                Send s = activeSend.get();
                if (s != null && s.owns(ordinal)) {
                    s.pullSettled();
                }
            }

            @Override
            public void onRejected(ByteBuf message, long ordinal, RuntimeException error) {
                message.release();
                Send s = activeSend.get();
                if (s != null && s.owns(ordinal)) {
                    s.fail(error);
                } else {
                    // a message of sendNow (or of a send that failed before) has nobody to tell: say so, not silently
                    LOG.warn("connection to {}: message {} was refused: {}",
                            socket.peer(), ordinal, error.getMessage());
                }
            }
        });
        socket.inbound(new EngineSocket.Inbound() {
            @Override
            public void onMessage(ByteBuf message) {
                inbound.onMessage(message);
            }

            @Override
            public void onRemoteWrite(int lastFragmentBytes) {
                remoteWrites.tryEmitNext(lastFragmentBytes);
            }

            @Override
            public void onClose(Throwable error) {
                failure = error;
                remoteWrites.tryEmitComplete();
                inbound.onClose(error);
                Send s = activeSend.get();
                if (s != null) {
                    s.fail(error != null ? error : new ClosedChannelException());
                }
                closed.tryEmitEmpty();
            }
        });
    }

    public RdmaInbound inbound() {
        return this;
    }

    public RdmaOutbound outbound() {
        return new Outbound(Mono.empty());
    }

    /**
     * {@inheritDoc}
     *
     * <p>As Reactor Netty's inbound: cancelling the subscription releases the messages waiting for
     * it and every later one as it arrives, counting them as consumed so the peer is never stalled
     * by them; the connection stays open (dispose it to close). Messages that arrive before anyone
     * subscribes wait; if the connection is disposed while nobody has subscribed, they are released,
     * and a later subscriber gets only the end of the stream. Disposing the {@link RdmaResources}
     * releases every message not yet delivered, subscriber or not.
     */
    @Override
    public Flux<ByteBuf> receive() {
        return inbound;
    }

    /** The peer, for messages and logs. */
    public String peer() {
        return socket.peer();
    }

    public java.net.InetSocketAddress remoteAddress() {
        return socket.remoteAddress();
    }

    /** The largest message the connection sends: the smaller of both ends' {@code EngineConfig.maxMessageSize}, agreed at connect. */
    public int maxMessageSize() {
        return socket.maxMessageSize();
    }

    /**
     * Queues one message without waiting for demand: for protocols that do their own flow control
     * (RSocket's REQUEST_N) and send push-style. Ownership passes; a message that cannot be sent
     * (too large, or the connection closed) is released. Prefer {@link RdmaOutbound#send} otherwise.
     *
     * @return false when the connection is closed
     */
    public boolean sendNow(ByteBuf message) {
        return socket.offer(message);
    }

    /**
     * Writes {@code payload} straight into a buffer of the peer whose address and rkey the caller
     * already knows — a buffer the peer allocated with {@link #allocateRemoteWritable} and
     * announced — skipping the rendezvous round trip. Ownership of the payload passes. The peer
     * learns of it on {@link #remoteWrites()}.
     *
     * @return false when the connection is closed (the payload was released)
     */
    public boolean writeNow(ByteBuf payload, long remoteAddress, int rkey) {
        return socket.offer(new io.reactorrdma.engine.DirectWrite(payload, remoteAddress, rkey));
    }

    /**
     * A buffer only this connection's peer may READ: a message written into it and larger than the
     * peer's eager size goes by pull rendezvous without a copy (the peer reads it; no destination
     * round trip). Only when pull rendezvous is on for this connection (the default,
     * {@code EngineConfig.withPullRendezvous} on both sides); other memory is copied into such a
     * buffer first when it is at most {@code EngineConfig.pullCopyLimit}, and goes by the WRITE
     * rendezvous when larger.
     *
     * @throws IllegalStateException when pull rendezvous is not on for this connection
     */
    public ByteBuf allocateRemoteReadable(int size) {
        return socket.allocateRemoteReadable(size);
    }

    /** A buffer peers may write into with {@link #writeNow}; announce its address and rkey to them. */
    public ByteBuf allocateRemoteWritable(int size) {
        return socket.allocateRemoteWritable(size);
    }

    /**
     * One element per direct write the peer finished into our memory: the bytes of its last
     * fragment. Several subscribers may come and go; elements that came while none was subscribed
     * wait (up to {@code Queues.SMALL_BUFFER_SIZE}) for the first one. Completes when the
     * connection closes.
     */
    public Flux<Integer> remoteWrites() {
        return remoteWrites.asFlux();
    }

    /**
     * Runs {@code listener} on the I/O thread each time the engine sent or refused messages of this
     * connection (its queue has more room), for a transport that tells waiting requesters instead of
     * letting them poll; null stops it. It runs inside the engine's turn: keep it short, never block.
     */
    public void sentListener(Runnable listener) {
        this.sentListener = listener;
    }

    /** Messages queued and not yet taken by the engine: how far sending lags behind. */
    public int queuedMessages() {
        return socket.queued();
    }

    /**
     * This side's receive window for the connection ({@code EngineConfig.socketMessageWindow},
     * default {@value io.reactorrdma.config.EngineConfig#DEFAULT_SOCKET_MESSAGE_WINDOW}): the most
     * messages the peer may have sent that this side has not yet granted back.
     */
    public int receiveWindow() {
        return socket.receiveWindow();
    }

    /**
     * Messages the peer may still send before this side grants more: {@link #receiveWindow()} less
     * those that arrived and were not yet read (or read and not yet granted back, which happens in
     * batches of half the window). 0 means the peer's next message waits at the peer. Readable
     * from any thread without allocating; a snapshot that may lag the I/O thread by a message.
     */
    public int receiveHeadroom() {
        return socket.receiveHeadroom();
    }

    /**
     * Registered memory for messages to this connection's peer: small buffers from the resources'
     * local pool; a buffer asked for larger than the peer takes eagerly from this connection's
     * readable pool (when pull rendezvous is on), so the message goes by pull — the peer READs it
     * where it lies — without a copy or a wake-up of this side. The peer may read that memory
     * (it holds only messages exchanged with it).
     */
    public ByteBufAllocator alloc() {
        return alloc;
    }

    /**
     * Closes the connection gracefully (what was queued is sent first); messages received that
     * nobody subscribed to read are released.
     */
    /** The connection holds no unread message any more: its resources need not release any for it. */
    private void untrackFrom(RdmaResources owner) {
        owner.untrack(inbound);
    }

    @Override
    public void dispose() {
        socket.close();
        inbound.releaseUnread();
    }

    @Override
    public boolean isDisposed() {
        return socket.isClosed();
    }

    /** Tests: the ordinal runs the running send keeps (0 without one); read racily from any thread. */
    int activeSendRuns() {
        Send s = activeSend.get();
        return s == null ? 0 : s.runCount;
    }

    /** Messages the engine took from the socket's queue so far (any thread; a volatile read, off the sendNow path). */
    private long taken() {
        return (long) TAKEN.getVolatile(this);
    }

    /** Completes when the connection is closed, from either side or by a failure (see {@link #failure()}). */
    public Mono<Void> onDispose() {
        return closed.asMono();
    }

    /**
     * Why the connection ended, once it has: the engine's error naming the peer and the cause (a
     * dead peer, a protocol error), or null after a normal close or while it is open.
     */
    public Throwable failure() {
        return failure;
    }

    private Mono<Void> sendMono(Publisher<? extends ByteBuf> messages) {
        return Mono.defer(() -> {
            Send send = new Send();
            if (!activeSend.compareAndSet(null, send)) {
                discard(messages);
                return Mono.error(new IllegalStateException("another send is still running on this connection; chain sends with then()"));
            }
            if (socket.isClosed()) {
                activeSend.compareAndSet(send, null);
                discard(messages);
                return Mono.error(new ClosedChannelException());
            }
            Flux.from(messages).subscribe(send.gated);
            return send.gated.completion()
                    .then(Mono.defer(send::allSent))
                    // the next send may start as soon as this one's subscriber hears the end
                    .doOnTerminate(() -> activeSend.compareAndSet(send, null))
                    .doFinally(signal -> {
                        if (signal == SignalType.CANCEL) {
                            // after the cancel has reached the completion's subscription (doOnCancel would run
                            // before): the CancellationException then has no subscriber to be dropped at
                            send.gated.cancel();
                        }
                        activeSend.compareAndSet(send, null);
                    });
        });
    }

    /** Takes nothing from {@code messages}: cancels at once, releasing whatever it emits or discards. */
    private static void discard(Publisher<? extends ByteBuf> messages) {
        Flux.<ByteBuf>from(messages)
                .doOnDiscard(ByteBuf.class, ReferenceCountUtil::safeRelease)
                .subscribe(new BaseSubscriber<ByteBuf>() {
                    @Override
                    protected void hookOnSubscribe(Subscription subscription) {
                        cancel();
                    }

                    @Override
                    protected void hookOnNext(ByteBuf message) {
                        ReferenceCountUtil.safeRelease(message);
                    }
                });
    }

    /** Chunk of a send's queue of messages not yet taken. */
    private static final int NOT_TAKEN_CHUNK = 16;

    /**
     * One {@code send}: a {@link CapacityGatedSubscriber} requests from the publisher only what the
     * socket's queue has room for (the queue drains as work requests, credits, window and the peer's
     * allowance permit); the send completes when the engine has sent every message of its own, and
     * the peer has released those it pulled, and fails when one of them was refused (too large, or
     * the peer had no memory for it) or the connection ended. Messages queued by
     * {@code sendNow}, {@code writeNow} or an earlier, cancelled send on other threads may reach the
     * queue between its own, in any order, so the send learns its messages' ordinals from the
     * engine ({@code onTaken}): its own are taken in the order it offered them, each still the
     * object it offered.
     */
    private final class Send {
        final Sinks.Empty<Void> drained = Sinks.empty();
        volatile boolean upstreamDone;
        /**
         * Offered and not yet taken, oldest first: this send's thread adds, the I/O thread removes.
         * A chunked array queue (no node per message), small while the window keeps it short.
         */
        final Queue<ByteBuf> notTaken = PlatformDependent.newMpscQueue(NOT_TAKEN_CHUNK, 1 << 30);
        /** Ordinal of the last of its own messages the engine took; written before it leaves {@link #notTaken}. */
        volatile long lastOrdinal;
        /**
         * I/O thread: its own ordinals, as runs {@code [from, to]} in pairs; a new run starts only
         * when another thread's message came between two of its own.
         */
        long[] runs = new long[2];
        int runCount;
        /**
         * Its messages that went by pull and that the peer has not yet read and released (or
         * refused): the send completes only when none is left, so a refusal fails it. Written by the
         * I/O thread only.
         */
        volatile int pullsPending;
        final CapacityGatedSubscriber<ByteBuf> gated = new CapacityGatedSubscriber<>(
                () -> Math.max(0, sendWindow - socket.queued()),
                message -> {
                    notTaken.add(message); // before the offer: the engine may take it at once
                    Runnable hook = beforeSendOffer;
                    if (hook != null) {
                        hook.run();
                    }
                    if (!socket.offer(message)) { // the socket released it
                        throw new IllegalStateException("connection to " + socket.peer() + " is closed", new ClosedChannelException());
                    }
                },
                Operators.enableOnDiscard(Context.empty(), ReferenceCountUtil::safeRelease));

        Mono<Void> allSent() {
            upstreamDone = true;
            completeIfTaken();
            return drained.asMono();
        }

        /** I/O thread: the engine took {@code message} as {@code ordinal}; it is ours if it is the oldest we offered. */
        void onTaken(Object message, long ordinal) {
            if (notTaken.peek() != message) { // both are live buffers, so the same object is the same message
                return;
            }
            if (runCount > 0 && runs[2 * runCount - 1] == ordinal - 1) {
                runs[2 * runCount - 1] = ordinal;
            } else {
                forgetSettledRuns();
                if (2 * runCount == runs.length) {
                    runs = java.util.Arrays.copyOf(runs, runs.length * 2);
                }
                runs[2 * runCount] = ordinal;
                runs[2 * runCount + 1] = ordinal;
                runCount++;
            }
            lastOrdinal = ordinal;
            notTaken.poll();
        }

        /** The engine sent more of the queue (I/O thread). */
        void sent() {
            completeIfTaken();
            gated.capacityAvailable();
        }

        /** I/O thread: one of its messages went by pull (before it counts as sent). */
        void pullPending() {
            pullsPending = pullsPending + 1; // the I/O thread is the only writer
        }

        /** I/O thread: one of its pulled messages was released (or refused: it failed already). */
        void pullSettled() {
            pullsPending = pullsPending - 1;
            completeIfTaken();
        }

        private void completeIfTaken() {
            if (upstreamDone && notTaken.isEmpty() && taken() >= lastOrdinal && pullsPending == 0) {
                drained.tryEmitEmpty();
            }
        }

        /**
         * I/O thread: drops the runs nothing can ask about any more — every message in them sent, and none of
         * this send's pulls pending (a pulled message's refusal and release name its ordinal after it was
         * sent) — so a long send interleaved with {@code sendNow} keeps a few runs, not one per interleave.
         */
        private void forgetSettledRuns() {
            if (pullsPending != 0) {
                return;
            }
            long gone = taken; // this thread writes it
            int keep = 0;
            while (keep < runCount && runs[2 * keep + 1] <= gone) {
                keep++;
            }
            if (keep > 0) {
                System.arraycopy(runs, 2 * keep, runs, 0, 2 * (runCount - keep));
                runCount -= keep;
            }
        }

        /** I/O thread: whether the message with {@code ordinal} is one of this send's. */
        boolean owns(long ordinal) {
            for (int i = runCount - 1; i >= 0; i--) {
                if (ordinal >= runs[2 * i]) {
                    return ordinal <= runs[2 * i + 1];
                }
            }
            return false;
        }

        void fail(Throwable error) {
            drained.tryEmitError(error);
            gated.fail(error);
        }
    }

    /** An outbound whose {@link #then()} is the chain of sends so far. */
    private final class Outbound implements RdmaOutbound {
        private final Mono<Void> sends;

        Outbound(Mono<Void> sends) {
            this.sends = sends;
        }

        @Override
        public RdmaOutbound send(Publisher<? extends ByteBuf> messages) {
            return new Outbound(sends.then(sendMono(messages)));
        }

        @Override
        public Mono<Void> then() {
            return sends;
        }

        @Override
        public ByteBufAllocator alloc() {
            return alloc;
        }

        @Override
        public void subscribe(org.reactivestreams.Subscriber<? super Void> s) {
            sends.subscribe(s);
        }
    }

    @Override
    public String toString() {
        return "RdmaConnection{" + socket + "}";
    }
}
