package io.reactorrdma.rsocket.shard;

import io.micrometer.core.instrument.Counter;
import io.rsocket.DuplexConnection;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.loadbalance.LoadbalanceTarget;
import io.rsocket.loadbalance.WeightedStats;
import io.rsocket.plugins.DuplexConnectionInterceptor;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.annotation.Nullable;
import reactor.util.retry.Retry;

import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * One replica of a shard: keeps one RSocket connection to it. When that connection closes (the
 * engine found the peer dead: its socket closed, it stayed silent past the peer timeout, or
 * RSocket's keepalive went unanswered) the replica is ejected, counted and logged, and
 * reconnected with exponential back-off until it answers again, when it returns to the balance.
 * The statistics the weighted strategy reads ({@link ReplicaStats}) belong to the replica and
 * outlive its connections, so a replica that was slow before it was ejected is not taken for fast.
 */
final class Replica {

    private static final Logger LOG = Loggers.getLogger(Replica.class);
    /**
     * How long a call that failed with RSocket's cause-less {@code ClosedChannelException} waits for
     * its connection's close error, to name it: RSocket fails the calls from that very signal, so
     * it is normally there already.
     */
    private static final Duration CLOSE_CAUSE_WAIT = Duration.ofMillis(500);

    private final LoadbalanceTarget target;
    private final Supplier<RSocketConnector> connectors;
    private final Duration connectTimeout;
    private final Duration minBackoff;
    private final Duration maxBackoff;
    private final Counter ejections;
    private final AtomicReference<Connected> live = new AtomicReference<>();
    private final AtomicLong sent = new AtomicLong();
    private final Sinks.Empty<Void> closed = Sinks.empty();
    private final ReplicaStats stats;
    private volatile Disposable connecting;
    private volatile boolean disposed;
    private volatile boolean everConnected;

    /**
     * A live connection, the same connection as the weighted strategy sees it (wrapped with the
     * latency statistics of its requests, {@link WeightedStats#wrap}), and the transport's
     * connection under it, whose {@code onClose()} error says why it closed (null if unknown).
     */
    record Connected(RSocket socket, RSocket weighted, @Nullable DuplexConnection transport) {
    }

    Replica(LoadbalanceTarget target, Supplier<RSocketConnector> connectors, Duration connectTimeout,
            Duration minBackoff, Duration maxBackoff, Counter ejections, ReplicaStats stats) {
        this.stats = stats;
        this.target = target;
        this.connectors = connectors;
        this.connectTimeout = connectTimeout;
        this.minBackoff = minBackoff;
        this.maxBackoff = maxBackoff;
        this.ejections = ejections;
    }

    String key() {
        return target.getKey();
    }

    /** The live connection, or null while the replica is connecting or ejected. */
    @Nullable
    Connected connected() {
        Connected c = live.get();
        return c == null || c.socket().isDisposed() ? null : c;
    }

    ReplicaStats stats() {
        return stats;
    }

    /** Requests sent to this replica (attempts and hedges included). */
    long sent() {
        return sent.get();
    }

    void onSend() {
        sent.incrementAndGet();
    }

    /** Starts connecting (with back-off until it succeeds or the replica is disposed). */
    void start() {
        Retry backoff = Retry.backoff(Long.MAX_VALUE, minBackoff).maxBackoff(maxBackoff).jitter(0.5)
                .doBeforeRetry(s -> LOG.debug("replica {}: connect attempt {} failed ({}), trying again with back-off",
                        key(), s.totalRetries() + 1, String.valueOf(s.failure())));
        connecting = Mono.defer(this::connectOnce)
                .retryWhen(backoff)
                .subscribe(this::onConnected, e -> LOG.debug("replica " + key() + " stopped connecting", e));
    }

    private Mono<Connected> connectOnce() {
        if (disposed) {
            return Mono.empty();
        }
        AtomicReference<DuplexConnection> transport = new AtomicReference<>();
        RSocketConnector connector = connectors.get().interceptors(r -> r.forConnection((type, c) -> {
            if (type == DuplexConnectionInterceptor.Type.SOURCE) {
                transport.set(c);
            }
            return c;
        }));
        // guarded: a timeout during RSocket's setup would leave the SETUP frame and the connection behind
        return GuardedConnect.connect(connector, target.getTransport())
                .timeout(connectTimeout)
                .map(socket -> new Connected(socket, stats.wrap(socket), transport.get()));
    }

    /**
     * The error a call on connection {@code c} fails with instead of {@code error}: RSocket's own
     * {@code ClosedChannelException} (no cause, no peer) becomes a {@link PeerClosedChannelException}
     * naming this replica and carrying the transport's close error (waited for up to
     * {@link #CLOSE_CAUSE_WAIT}); every other error is kept.
     */
    Mono<Throwable> namePeer(@Nullable Connected c, Throwable error) {
        if (!(error instanceof ClosedChannelException) || error instanceof PeerClosedChannelException || error.getCause() != null) {
            return Mono.just(error);
        }
        DuplexConnection transport = c == null ? null : c.transport();
        if (transport == null) {
            return Mono.just(new PeerClosedChannelException(key(), null));
        }
        return transport.onClose().then(Mono.<Throwable>empty())
                .onErrorResume(Mono::just)
                .timeout(CLOSE_CAUSE_WAIT, Mono.empty())
                .map(cause -> (Throwable) new PeerClosedChannelException(key(), cause))
                .defaultIfEmpty(new PeerClosedChannelException(key(), null));
    }

    /** Fails with {@link #namePeer}'s error for {@code error}. */
    <T> Mono<T> failNamingPeer(@Nullable Connected c, Throwable error) {
        return namePeer(c, error).flatMap(Mono::error);
    }

    /**
     * {@code interaction} on this replica's live connection, as the weighted strategy sees it. Fails
     * with a {@link PeerClosedChannelException} naming this replica when it has no live connection
     * (it closed since the pick), and with {@link #namePeer}'s error when the connection fails the call.
     */
    <T> Flux<T> call(Function<RSocket, Publisher<T>> interaction) {
        Connected c = connected();
        return c == null ? Flux.error(new PeerClosedChannelException(key(), null))
                : Flux.from(interaction.apply(c.weighted())).onErrorResume(e -> failNamingPeer(c, e));
    }

    private void onConnected(Connected c) {
        if (disposed) {
            c.socket().dispose();
            return;
        }
        live.set(c);
        if (disposed && live.compareAndSet(c, null)) {
            c.socket().dispose(); // dispose() ran between the check above and the set: it did not see c
            return;
        }
        boolean returned = everConnected;
        everConnected = true;
        LOG.debug("replica {}{}", key(), returned ? " returned: it answers again" : " connected");
        c.socket().onClose().subscribe(null, e -> onClosed(c, e), () -> onClosed(c, null));
    }

    private void onClosed(Connected c, @Nullable Throwable cause) {
        if (!live.compareAndSet(c, null)) {
            return;
        }
        if (disposed) {
            closed.tryEmitEmpty();
            return;
        }
        ejections.increment();
        if (LOG.isDebugEnabled()) {
            LOG.debug("replica {} ejected: its connection closed{}; reconnecting with back-off", key(),
                    cause == null ? "" : ": " + describe(cause));
        }
        start();
    }

    private static String describe(Throwable cause) {
        StringBuilder s = new StringBuilder(String.valueOf(cause));
        for (Throwable t = cause.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
            s.append(" <- ").append(t);
        }
        return s.toString();
    }

    void dispose() {
        disposed = true;
        Disposable d = connecting;
        if (d != null) {
            d.dispose();
        }
        Connected c = live.getAndSet(null);
        if (c == null) {
            closed.tryEmitEmpty();
            return;
        }
        c.socket().dispose();
        c.socket().onClose().onErrorResume(e -> Mono.empty()).subscribe(null, null, closed::tryEmitEmpty);
    }

    /** Completes once the replica is disposed and its connection closed. */
    Mono<Void> onClose() {
        return closed.asMono();
    }

    @Override
    public String toString() {
        return "Replica{" + key() + (connected() != null ? ", live" : ", down") + "}";
    }
}
