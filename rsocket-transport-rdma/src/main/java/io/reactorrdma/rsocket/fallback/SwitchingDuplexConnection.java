package io.reactorrdma.rsocket.fallback;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import io.reactorrdma.rsocket.ReleaseAfterNext;
import io.reactorrdma.rsocket.RoomSignal;
import io.rsocket.DuplexConnection;
import io.rsocket.RSocketErrorException;
import io.rsocket.exceptions.CanceledException;
import io.rsocket.exceptions.RejectedException;
import io.rsocket.frame.CancelFrameCodec;
import io.rsocket.frame.ErrorFrameCodec;
import io.rsocket.frame.FrameHeaderCodec;
import io.rsocket.frame.FrameType;
import io.rsocket.frame.SetupFrameCodec;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.util.retry.Retry;

import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The connection {@link FallbackClientTransport} hands RSocket while it runs on TCP: it starts on
 * the TCP connection and, once a background probe has connected RDMA, moves to it without RSocket
 * noticing. The switch replays the SETUP frame RSocket sent first on the new connection (the
 * server accepts it as a new client); from then on frames that open a new stream go to the new
 * connection, every other frame of a stream goes to the connection the stream started on, and
 * stream 0 (METADATA_PUSH, LEASE, KEEPALIVE) goes to and comes from the current connection only,
 * except that the KEEPALIVEs RSocket sends are copied to draining connections too, so that the
 * server keeps them while their streams finish (their answers are dropped).
 * Received frames of all connections are merged. The old connection closes when its last stream
 * has ended ({@link StreamLifecycle}) or after the drain timeout; streams it still had then get an
 * ERROR CANCELED (the server may have started them: never retried here) or, for streams the server
 * opened, a CANCEL, so that no call hangs.
 *
 * <p>A session whose client honours leases moves its new requests only with their lease
 * ({@link LeaseHandOver}): after the SETUP replay, the new connection's frames are taken but its
 * LEASE is kept, and new requests stay on the old connection, while the client still has requests
 * of the old connection's lease; once that lease is used up and the new connection's first lease
 * has come, the connection moves and RSocket gets that lease. Until then the new connection gets
 * copies of the KEEPALIVEs; if it closes first, the session stays where it is and probes again.
 *
 * <p>A session with resumption enabled is never switched (RSocket's resume replays frames by
 * position on one connection): it stays on TCP, and the probe stops.
 */
final class SwitchingDuplexConnection implements DuplexConnection {

    private static final Logger LOG = Loggers.getLogger(SwitchingDuplexConnection.class);

    /** What the transport learns of a switch. */
    interface Listener {
        /** The connection moved to {@code returned}; {@code previous} drains. */
        void returned(DuplexConnection previous, DuplexConnection returned);
    }

    private final Object lock = new Object();
    private final Object emitLock = new Object();
    private final Duration drainTimeout;
    private final Listener listener;
    private final Sinks.Many<ByteBuf> inbound = Sinks.many().unicast().onBackpressureBuffer();
    private final Sinks.Empty<Void> closed = Sinks.empty();
    private final Flux<ByteBuf> receive;
    /** Signals a waiting requester: the current connection's own signal, a lease handled, a switch. */
    private final RoomSignal room = new RoomSignal(this::armCurrent);
    private final Runnable relayRoom = room::signal;

    /**
     * Switched and drained: no other connection is left and none will come, so frames pass
     * straight through without stream tracking (the path of a returned connection's lifetime).
     */
    private volatile boolean settled;

    // written under lock; current and disposed are volatile so that the settled path reads them without it
    private volatile DuplexConnection current;
    private volatile boolean disposed;
    /**
     * {@link #dispose()} or {@link #sendErrorAndClose} was called: no switch from then on, even before
     * the current connection's close (asynchronous for TCP) sets {@link #disposed}.
     */
    private volatile boolean closing;
    private final Set<DuplexConnection> draining = new HashSet<>();
    private final Map<Integer, StreamLifecycle> streams = new HashMap<>();
    private final Set<DuplexConnection> receiving = new HashSet<>();
    private final List<Disposable> timers = new ArrayList<>();
    private boolean subscribed;
    private boolean resumable;
    private ByteBuf setup;
    private Disposable probe;
    /** Probes again, as {@link #probe} was asked to, when {@link #incoming} closes before the move. */
    private Runnable reprobe;
    /** The SETUP says the client honours leases: new requests move with their lease ({@link #leases}). */
    private boolean leased;
    private final LeaseHandOver leases = new LeaseHandOver();
    /** A leased session's connection switched to that is not current yet: it waits for its first lease. */
    private DuplexConnection incoming;

    SwitchingDuplexConnection(DuplexConnection first, Duration drainTimeout, Listener listener) {
        this.current = first;
        this.drainTimeout = drainTimeout;
        this.listener = listener;
        this.receive = ReleaseAfterNext.apply(inbound.asFlux().doOnSubscribe(s -> startReceiving()), room::signal)
                .doOnDiscard(ByteBuf.class, ReferenceCountUtil::safeRelease);
        watch(first);
    }

    /**
     * Probes with {@code connect} after {@code firstDelay}, then with exponential back-off capped at
     * {@code interval}, until a connection is switched to or this connection closes.
     */
    void probe(Mono<DuplexConnection> connect, Duration firstDelay, Duration interval) {
        Disposable p = connect.doOnError(e -> LOG.debug("probe from {} failed: {}", this, e.toString()))
                .flatMap(next -> switchTo(next) ? Mono.just(next)
                        : Mono.<DuplexConnection>error(new IllegalStateException("not switched yet: no SETUP sent")))
                .retryWhen(Retry.backoff(Long.MAX_VALUE, firstDelay).maxBackoff(interval).jitter(0.1)
                        .filter(e -> isSwitchable()))
                .delaySubscription(firstDelay)
                .subscribe(null, e -> { });
        synchronized (lock) {
            reprobe = () -> probe(connect, firstDelay, interval);
            if (disposed || closing || resumable) {
                p.dispose();
            } else {
                probe = p;
            }
        }
    }

    private boolean isSwitchable() {
        synchronized (lock) {
            return !disposed && !closing && !resumable && incoming == null;
        }
    }

    /**
     * Moves to {@code next}: false (and {@code next} closed) when this connection cannot switch now.
     * A leased session only replays its SETUP there now and moves with the lease ({@link LeaseHandOver}).
     */
    boolean switchTo(DuplexConnection next) {
        DuplexConnection previous;
        boolean now;
        boolean previousIdle = false;
        synchronized (lock) {
            if (disposed || closing || resumable || setup == null || incoming != null) {
                next.dispose();
                return false;
            }
            // under the lock: no frame is routed to next, and none of its frames is read, before the SETUP went first
            next.sendFrame(0, setup.retainedDuplicate());
            previous = current;
            now = !leased;
            if (now) {
                previousIdle = moveUnderLock(next);
            } else {
                incoming = next;
            }
            if (probe != null) {
                probe = null; // it ends with this switch
            }
        }
        watch(next);
        receiveIfSubscribed(next);
        if (now) {
            moved(previous, next, previousIdle);
        } else {
            LOG.debug("SETUP replayed on {}; new requests stay on {} until the client's lease there is used up "
                    + "and {} has sent its first lease", next, previous, next);
        }
        return true;
    }

    /** Under lock: {@code next} becomes current; true when the previous one has no stream (it is to close now), else it drains. */
    private boolean moveUnderLock(DuplexConnection next) {
        DuplexConnection previous = current;
        current = next;
        boolean previousIdle = streams.values().stream().noneMatch(s -> s.connection() == previous);
        if (previousIdle) {
            settle();
        } else {
            draining.add(previous);
            timers.add(Mono.delay(drainTimeout).subscribe(t -> drainTimedOut(previous)));
        }
        return previousIdle;
    }

    /** After {@link #moveUnderLock}, outside the lock. */
    private void moved(DuplexConnection previous, DuplexConnection next, boolean previousIdle) {
        room.signal(); // another connection, another availability
        LOG.debug("moved to {}; {}{}", next, previous, previousIdle ? " closes now (no stream open)" : " drains");
        listener.returned(previous, next);
        if (previousIdle) {
            previous.dispose();
        }
    }

    private void drainTimedOut(DuplexConnection c) {
        boolean still;
        synchronized (lock) {
            still = draining.contains(c);
        }
        if (still) {
            LOG.debug("{} still had streams after the drain timeout of {}; closing it", c, drainTimeout);
            c.dispose();
        }
    }

    @Override
    public void sendFrame(int streamId, ByteBuf frame) {
        if (settled) { // no lock on the path a returned connection keeps for its lifetime
            DuplexConnection c = current;
            if (disposed) {
                frame.release();
            } else {
                c.sendFrame(streamId, frame);
            }
            return;
        }
        FrameType type = FrameHeaderCodec.nativeFrameType(frame);
        int flags = FrameHeaderCodec.flags(frame);
        DuplexConnection target;
        DuplexConnection drained = null;
        List<DuplexConnection> keptAlive = List.of();
        DuplexConnection movedFrom = null;
        DuplexConnection movedTo = null;
        boolean movedFromIdle = false;
        ByteBuf lease = null;
        synchronized (lock) {
            if (disposed) {
                frame.release();
                return;
            }
            if (settled) {
                target = current; // settled while this thread came here: nothing to track any more
            } else if (streamId == 0) {
                if (type == FrameType.KEEPALIVE && (!draining.isEmpty() || incoming != null)) {
                    keptAlive = new ArrayList<>(draining);
                    if (incoming != null) {
                        keptAlive.add(incoming); // so that the server does not time it out before the move
                    }
                }
                if (type == FrameType.SETUP && setup == null) {
                    setup = frame.retainedDuplicate();
                    resumable = SetupFrameCodec.resumeEnabled(frame);
                    leased = SetupFrameCodec.honorLease(frame);
                    if (resumable) {
                        stopProbe();
                        LOG.info("{}: resumption is enabled, so this session stays on {} and will not return to RDMA; reconnect to return",
                                this, current);
                    }
                }
                target = current;
            } else {
                StreamLifecycle s = streams.get(streamId);
                if (s == null) {
                    target = current;
                    if (StreamLifecycle.opensStream(type)) {
                        s = StreamLifecycle.open(current, type, flags, true);
                        if (!s.ended()) {
                            streams.put(streamId, s);
                        }
                        if (leased && leases.requestSent() && incoming != null) {
                            // the client's lease here is used up: it counts no request under it any more, so the next ones go
                            // to incoming, under the lease kept for it
                            movedFrom = current;
                            movedTo = incoming;
                            incoming = null;
                            lease = leases.take();
                            movedFromIdle = moveUnderLock(movedTo);
                        }
                    }
                } else {
                    target = s.connection();
                    s.sent(type, flags);
                    if (s.ended()) {
                        streams.remove(streamId);
                        drained = drainedNow(target);
                    }
                }
            }
        }
        for (DuplexConnection d : keptAlive) {
            d.sendFrame(0, frame.retainedDuplicate()); // so that the server does not time the draining connection out
        }
        target.sendFrame(streamId, frame);
        if (drained != null) {
            drained.dispose();
        }
        if (movedTo != null) {
            moved(movedFrom, movedTo, movedFromIdle);
            handOverLater(lease);
        }
    }

    /**
     * Gives RSocket the new connection's first lease from another thread: this one sends a request
     * inside RSocket 1.1.5's lease tracker, which counts that request down only after the send, so
     * a LEASE handled here, within it, would have its count overwritten.
     */
    private void handOverLater(ByteBuf lease) {
        try {
            Schedulers.parallel().schedule(() -> deliver(lease));
        } catch (RejectedExecutionException e) {
            lease.release(); // the scheduler is shut down: the application is stopping
        }
    }

    private void onFrame(DuplexConnection from, ByteBuf frame) {
        if (settled) { // the current connection is the only one left: deliver without the lock
            if (!disposed && from == current) {
                deliver(frame.retain());
            }
            return; // otherwise the source releases the frame
        }
        int streamId = FrameHeaderCodec.streamId(frame);
        FrameType type = FrameHeaderCodec.nativeFrameType(frame);
        int flags = FrameHeaderCodec.flags(frame);
        boolean deliver;
        boolean reject = false;
        DuplexConnection drained = null;
        DuplexConnection movedFrom = null;
        boolean movedFromIdle = false;
        synchronized (lock) {
            boolean isCurrent = from == current;
            boolean isIncoming = from == incoming;
            if (disposed || !(isCurrent || isIncoming || draining.contains(from))) {
                return; // the source releases the frame
            }
            if (settled) {
                deliver = true; // settled since the check above: from the current connection, the only one left
            } else if (streamId == 0 && type == FrameType.LEASE && isIncoming) {
                deliver = leases.leaseOnNew(frame); // else kept until the client's lease on the current connection is used up
                if (deliver) {
                    movedFrom = current;
                    incoming = null;
                    movedFromIdle = moveUnderLock(from);
                }
            } else if (streamId == 0) {
                deliver = isCurrent;
                if (isCurrent && leased && type == FrameType.LEASE) {
                    leases.leaseOnCurrent(frame);
                }
            } else {
                StreamLifecycle s = streams.get(streamId);
                if (s == null) {
                    deliver = true;
                    if (StreamLifecycle.opensStream(type)) {
                        s = StreamLifecycle.open(from, type, flags, false);
                        if (!s.ended()) {
                            streams.put(streamId, s);
                        }
                    }
                } else if (s.connection() != from) {
                    // the server numbers its streams per connection: its new stream reuses an id still open on the other one
                    deliver = false;
                    reject = StreamLifecycle.opensStream(type);
                } else {
                    deliver = true;
                    s.received(type, flags);
                    if (s.ended()) {
                        streams.remove(streamId);
                        drained = drainedNow(from);
                    }
                }
            }
        }
        if (reject) {
            from.sendFrame(streamId, ErrorFrameCodec.encode(from.alloc(), streamId, new RejectedException(
                    "stream " + streamId + " is still open on the client's previous connection while it moves to RDMA; retry")));
        }
        if (movedFrom != null) {
            moved(movedFrom, from, movedFromIdle);
        }
        if (deliver) {
            deliver(frame.retain());
        }
        if (drained != null) {
            drained.dispose();
        }
    }

    /** {@code c} if it drains and has no stream left (then it is no longer draining), else null. Under lock. */
    private DuplexConnection drainedNow(DuplexConnection c) {
        if (!draining.contains(c)) {
            return null;
        }
        for (StreamLifecycle s : streams.values()) {
            if (s.connection() == c) {
                return null;
            }
        }
        draining.remove(c);
        if (draining.isEmpty()) {
            settle();
        }
        return c;
    }

    /** Under lock: the old connection has gone after a switch. */
    private void settle() {
        streams.clear();
        settled = true;
    }

    /** Emits a frame this connection owns a reference of. */
    private void deliver(ByteBuf frame) {
        synchronized (emitLock) {
            if (inbound.tryEmitNext(frame).isFailure()) {
                frame.release();
            }
        }
    }

    private void endInbound(Throwable error) {
        synchronized (emitLock) {
            inbound.tryEmitError(error);
        }
    }

    private void startReceiving() {
        List<DuplexConnection> now;
        synchronized (lock) {
            subscribed = true;
            now = new ArrayList<>(draining);
            now.add(current);
            if (incoming != null) {
                now.add(incoming);
            }
        }
        now.forEach(this::receiveIfSubscribed);
    }

    private void receiveIfSubscribed(DuplexConnection c) {
        synchronized (lock) {
            if (!subscribed || !receiving.add(c)) {
                return;
            }
        }
        c.receive().subscribe(f -> onFrame(c, f), e -> onReceiveEnd(c, e), () -> onReceiveEnd(c, null));
    }

    private void onReceiveEnd(DuplexConnection c, Throwable error) {
        boolean isCurrent;
        synchronized (lock) {
            isCurrent = c == current;
        }
        if (isCurrent) {
            endInbound(error != null ? error : new ClosedChannelException()); // its onClose, with its cause, settles the rest
        } else {
            c.dispose(); // a draining connection whose frames ended is of no use: its onClose ends its streams
        }
    }

    private void watch(DuplexConnection c) {
        c.onClose().subscribe(null, e -> onConnectionClosed(c, e), () -> onConnectionClosed(c, null));
    }

    private void onConnectionClosed(DuplexConnection c, Throwable error) {
        List<DuplexConnection> others = List.of();
        List<ByteBuf> synthetic = new ArrayList<>();
        boolean whole;
        Runnable probeAgain = null;
        synchronized (lock) {
            whole = c == current;
            if (whole) {
                disposed = true;
                others = new ArrayList<>(draining);
                if (incoming != null) {
                    others.add(incoming);
                    incoming = null;
                }
                leases.release();
                draining.clear();
                streams.clear();
                stopProbe();
                timers.forEach(Disposable::dispose);
                timers.clear();
                if (setup != null) {
                    setup.release();
                    setup = null;
                }
            } else if (c == incoming) {
                incoming = null;
                leases.release();
                endStreamsOf(c, synthetic);
                probeAgain = closing ? null : reprobe;
            } else if (draining.remove(c)) {
                endStreamsOf(c, synthetic);
                if (draining.isEmpty()) {
                    settle();
                }
            } else {
                return;
            }
        }
        if (probeAgain != null) {
            LOG.debug("{} closed before its first lease{}; the session stays on {} and probes again",
                    c, error != null ? " (" + error + ")" : "", current());
            probeAgain.run();
        }
        if (whole) {
            others.forEach(DuplexConnection::dispose);
            endInbound(error != null ? error : new ClosedChannelException());
            if (error != null) {
                closed.tryEmitError(error);
            } else {
                closed.tryEmitEmpty();
            }
        } else {
            if (!synthetic.isEmpty()) {
                LOG.debug("{} closed with {} stream(s) still open{}; ending them", c, synthetic.size(),
                        error != null ? " (" + error + ")" : "");
            }
            synthetic.forEach(this::deliver);
        }
    }

    /** Under lock: removes the streams of {@code c}, adding to {@code synthetic} the frames that end them for RSocket. */
    private void endStreamsOf(DuplexConnection c, List<ByteBuf> synthetic) {
        for (Iterator<Map.Entry<Integer, StreamLifecycle>> it = streams.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Integer, StreamLifecycle> e = it.next();
            if (e.getValue().connection() == c) {
                it.remove();
                synthetic.add(ending(e.getKey(), e.getValue(), c));
            }
        }
    }

    /** The frame that ends, for RSocket, a stream whose connection closed under it. */
    private static ByteBuf ending(int streamId, StreamLifecycle s, DuplexConnection c) {
        ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
        if (s.inboundOpen()) {
            return ErrorFrameCodec.encode(alloc, streamId, new CanceledException(
                    "the connection " + c + " closed while draining after the return to RDMA, before this stream ended"));
        }
        return CancelFrameCodec.encode(alloc, streamId);
    }

    private void stopProbe() {
        if (probe != null) {
            probe.dispose();
            probe = null;
        }
    }

    @Override
    public void sendErrorAndClose(RSocketErrorException error) {
        DuplexConnection c;
        List<DuplexConnection> others;
        synchronized (lock) {
            closing = true;
            c = current;
            others = new ArrayList<>(draining);
            if (incoming != null) {
                others.add(incoming);
            }
            stopProbe();
        }
        c.sendErrorAndClose(error);
        others.forEach(DuplexConnection::dispose);
    }

    /** The frames of all connections, merged; each released after {@code onNext} (RSocket retains what it keeps). */
    @Override
    public Flux<ByteBuf> receive() {
        return receive;
    }

    /** The allocator of the current connection. */
    @Override
    public ByteBufAllocator alloc() {
        return current().alloc();
    }

    @Override
    public SocketAddress remoteAddress() {
        return current().remoteAddress();
    }

    @Override
    public double availability() {
        room.introduce();
        return isDisposed() ? 0.0 : current().availability();
    }

    /** A waiter armed the signal: the current connection's own signal (a queue draining) relays to it. */
    private void armCurrent() {
        RoomSignal inner = RoomSignal.of(current());
        if (inner != null) {
            inner.whenRoom(relayRoom);
        }
    }

    /** Mirrors the current connection's close: completes, or errors with its cause. */
    @Override
    public Mono<Void> onClose() {
        return closed.asMono();
    }

    @Override
    public void dispose() {
        DuplexConnection c;
        List<DuplexConnection> others;
        synchronized (lock) {
            closing = true;
            c = current;
            others = new ArrayList<>(draining);
            if (incoming != null) {
                others.add(incoming);
            }
            stopProbe();
        }
        c.dispose();
        others.forEach(DuplexConnection::dispose);
    }

    @Override
    public boolean isDisposed() {
        synchronized (lock) {
            return disposed || closing || current.isDisposed();
        }
    }

    DuplexConnection current() {
        synchronized (lock) {
            return current;
        }
    }

    /** Connections still draining after a switch. */
    int drainingConnections() {
        synchronized (lock) {
            return draining.size();
        }
    }

    /** Whether a LEASE of the connection switched to is kept until the move (for tests and logs). */
    boolean leaseKept() {
        synchronized (lock) {
            return leases.keeps();
        }
    }

    /** Streams open on any connection (for tests and logs). */
    int openStreams() {
        synchronized (lock) {
            return streams.size();
        }
    }

    @Override
    public String toString() {
        return "SwitchingDuplexConnection{" + current() + "}";
    }
}
