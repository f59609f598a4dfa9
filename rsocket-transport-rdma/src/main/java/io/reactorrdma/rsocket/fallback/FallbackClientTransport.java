package io.reactorrdma.rsocket.fallback;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.reactorrdma.rsocket.shard.PeerClosedChannelException;
import io.reactorrdma.rsocket.shard.ShardClient;
import io.rsocket.DuplexConnection;
import io.rsocket.transport.ClientTransport;
import reactor.core.Disposable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * A {@link ClientTransport} that connects over RDMA and falls back to TCP when RDMA cannot connect,
 * returning to RDMA once it can. It plugs in wherever a transport does:
 * {@code RSocketConnector.connect(transport)}, {@code RSocketConnector.reconnect(...)}, or RSocket's
 * {@code LoadbalanceTarget.from(key, transport)}.
 *
 * <pre>{@code
 * FallbackClientTransport transport = FallbackClientTransport.builder(
 *                 LazyRdmaClientTransport.create(() -> RdmaResources.builder("c").provider("shm").build(), host, rdmaPort),
 *                 TcpClientTransport.create(host, tcpPort))
 *         .probeInterval(Duration.ofSeconds(5)).build();
 * RSocket rsocket = RSocketConnector.create().reconnect(Retry.backoff(10, Duration.ofMillis(100))).connect(transport).block();
 * }</pre>
 *
 * <p>Policy. Each {@link #connect()} tries RDMA for at most the RDMA connect timeout. Any failure
 * ({@code ProviderUnavailableException}, refused, timed out, handshake or version error, a
 * misconfiguration) falls back: it is logged once at WARNING with its cause, counted as
 * {@code rdma.fallbacks} tagged {@code cause} (the exception's simple name), and the connect goes on
 * over TCP; the whole connect (RDMA try and TCP) is bounded by the total connect timeout. While on
 * TCP the connection probes RDMA in the background: first after the first probe delay, then with
 * exponential back-off (10 % jitter) capped at the probe interval. When a probe connects, the
 * connection replays RSocket's SETUP on it, sends new requests over RDMA, lets the streams open on
 * TCP finish, then closes TCP (at the latest after the drain timeout); counted as
 * {@code rdma.returns}. A client that honours leases moves with its lease: new requests go over
 * TCP until the lease it has there is used up and RDMA's first lease has come. An RDMA connection that fails mid-run
 * closes with the transport's
 * {@code ClosedChannelException} naming the peer (RSocket 1.1.5 fails the calls in flight with its
 * own, cause-less one; {@link ShardClient} replaces it with a {@link PeerClosedChannelException}); the next
 * connect (RSocket's reconnect, the load balancer's pool) falls back the same way. A session with
 * resumption enabled never returns: it stays on TCP until it reconnects.
 */
public final class FallbackClientTransport implements ClientTransport {

    /** How long one RDMA connect (the first try of a connect, and each probe) may take: 2 s. */
    public static final Duration DEFAULT_RDMA_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** How long a whole connect, RDMA try and TCP fallback together, may take: 10 s. */
    public static final Duration DEFAULT_TOTAL_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** The longest pause between two probes of RDMA while on TCP: 5 s. */
    public static final Duration DEFAULT_PROBE_INTERVAL = Duration.ofSeconds(5);
    /** The pause before the first probe, and the first back-off step: 500 ms. */
    public static final Duration DEFAULT_FIRST_PROBE_DELAY = Duration.ofMillis(500);
    /** How long the TCP connection may keep its open streams after the return to RDMA before it is closed: 30 s. */
    public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(30);

    private static final Logger LOG = Loggers.getLogger(FallbackClientTransport.class);

    private final ClientTransport rdma;
    private final ClientTransport tcp;
    private final Duration rdmaConnectTimeout;
    private final Duration totalConnectTimeout;
    private final Duration probeInterval;
    private final Duration firstProbeDelay;
    private final Duration drainTimeout;
    private final MeterRegistry registry;
    private final Counter returns;

    private FallbackClientTransport(Builder b) {
        this.rdma = b.rdma;
        this.tcp = b.tcp;
        this.rdmaConnectTimeout = b.rdmaConnectTimeout;
        this.totalConnectTimeout = b.totalConnectTimeout;
        this.probeInterval = b.probeInterval;
        this.firstProbeDelay = b.firstProbeDelay;
        this.drainTimeout = b.drainTimeout;
        this.registry = b.registry;
        this.returns = Counter.builder("rdma.returns").description("Connections that moved back from TCP to RDMA")
                .register(registry);
    }

    /** A transport with every option at its default. */
    public static FallbackClientTransport create(ClientTransport rdma, ClientTransport tcp) {
        return builder(rdma, tcp).build();
    }

    /** Options over RDMA transport {@code rdma} and TCP transport {@code tcp} (to the same server's two ports). */
    public static Builder builder(ClientTransport rdma, ClientTransport tcp) {
        return new Builder(rdma, tcp);
    }

    /**
     * An RDMA connection, or, when RDMA cannot connect within the RDMA connect timeout, a TCP
     * connection that returns to RDMA later; errors when neither connected within the total
     * connect timeout, with the TCP error (the RDMA one suppressed) when both failed.
     */
    @Override
    public Mono<DuplexConnection> connect() {
        return Mono.defer(() -> {
            long start = System.nanoTime();
            return within(rdmaConnect().onErrorResume(e -> fallBack(e, start)), totalConnectTimeout, () -> new TimeoutException(
                    "neither RDMA (" + rdma + ") nor TCP (" + tcp + ") connected within the total connect timeout of "
                            + totalConnectTimeout + "; check that the server runs and serves both"));
        });
    }

    private Mono<DuplexConnection> rdmaConnect() {
        return within(Mono.defer(rdma::connect), rdmaConnectTimeout,
                () -> new TimeoutException("RDMA did not connect within " + rdmaConnectTimeout));
    }

    /**
     * {@code connect}, failing with {@code onTimeout} when it has not connected within {@code timeout}.
     * Not Reactor's {@code timeout()}: a connection that arrives as it fires is dropped there through
     * {@code onNextDropped} (not discarded), so it would never be closed. Here the first of the answer,
     * the timer and the caller's cancel decides; a connection that comes after is closed.
     */
    static Mono<DuplexConnection> within(Mono<DuplexConnection> connect, Duration timeout, Supplier<? extends Throwable> onTimeout) {
        return Mono.<DuplexConnection>create(sink -> {
            AtomicBoolean decided = new AtomicBoolean();
            AtomicReference<Subscription> upstream = new AtomicReference<>();
            Disposable timer = Schedulers.parallel().schedule(() -> {
                if (decided.compareAndSet(false, true)) {
                    cancel(upstream);
                    sink.error(onTimeout.get());
                }
            }, timeout.toNanos(), TimeUnit.NANOSECONDS);
            sink.onCancel(() -> {
                if (decided.compareAndSet(false, true)) {
                    timer.dispose();
                    cancel(upstream); // the connect's own cancel closes what it was opening
                }
            });
            // A subscriber that still hears the connect after cancelling it (a lambda subscriber would drop a late connection)
            connect.subscribe(new CoreSubscriber<DuplexConnection>() {
                @Override
                public reactor.util.context.Context currentContext() {
                    return reactor.util.context.Context.of(sink.contextView()); // the caller's context reaches the connect
                }

                @Override
                public void onSubscribe(Subscription s) {
                    if (upstream.compareAndSet(null, s)) {
                        if (decided.get()) {
                            s.cancel();
                        } else {
                            s.request(Long.MAX_VALUE);
                        }
                    } else {
                        s.cancel();
                    }
                }

                @Override
                public void onNext(DuplexConnection connection) {
                    if (decided.compareAndSet(false, true)) {
                        timer.dispose();
                        sink.success(connection); // a caller gone meanwhile: the sink discards it, and the hook below closes it
                    } else {
                        connection.dispose(); // after the timeout or the cancel
                    }
                }

                @Override
                public void onError(Throwable e) {
                    if (decided.compareAndSet(false, true)) {
                        timer.dispose();
                        sink.error(e);
                    }
                }

                @Override
                public void onComplete() {
                    if (decided.compareAndSet(false, true)) {
                        timer.dispose();
                        sink.success();
                    }
                }
            });
        }).doOnDiscard(DuplexConnection.class, DuplexConnection::dispose);
    }

    private static void cancel(AtomicReference<Subscription> upstream) {
        Subscription s = upstream.getAndSet(Operators.cancelledSubscription());
        if (s != null) {
            s.cancel();
        }
    }

    private Mono<DuplexConnection> fallBack(Throwable rdmaError, long start) {
        Throwable cause = unwrap(rdmaError);
        String tag = cause.getClass().getSimpleName();
        LOG.warn("RDMA connect over {} failed ({}); connecting over TCP ({}) instead, and probing RDMA every {} at most to return",
                rdma, cause, tcp, probeInterval);
        LOG.debug("the RDMA connect failure", cause);
        return Mono.defer(tcp::connect)
                .onErrorMap(e -> {
                    e.addSuppressed(rdmaError);
                    return e;
                })
                .map(connection -> {
                    // counted once TCP connected: a connect that reached neither side is no fallback
                    Counter.builder("rdma.fallbacks").description("Connects that fell back from RDMA to TCP").tag("cause", tag)
                            .register(registry).increment();
                    SwitchingDuplexConnection switching = new SwitchingDuplexConnection(connection, drainTimeout, this::returned);
                    switching.probe(rdmaConnect(), firstProbeDelay, probeInterval);
                    return (DuplexConnection) switching;
                });
    }

    private void returned(DuplexConnection previous, DuplexConnection returned) {
        returns.increment();
        LOG.info("RDMA answers again: new requests go over {}; {} closes once its streams ended (at most after {})",
                returned, previous, drainTimeout);
    }

    private static Throwable unwrap(Throwable e) {
        Throwable t = e;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** The smaller of the two transports' frame lengths: a frame must fit whichever carries it. */
    @Override
    public int maxFrameLength() {
        return Math.min(rdma.maxFrameLength(), tcp.maxFrameLength());
    }

    @Override
    public String toString() {
        return "FallbackClientTransport{rdma=" + rdma + ", tcp=" + tcp + "}";
    }

    /** Options of a {@link FallbackClientTransport}; each defaults to its {@code DEFAULT_*} constant. */
    public static final class Builder {
        private final ClientTransport rdma;
        private final ClientTransport tcp;
        private Duration rdmaConnectTimeout = DEFAULT_RDMA_CONNECT_TIMEOUT;
        private Duration totalConnectTimeout = DEFAULT_TOTAL_CONNECT_TIMEOUT;
        private Duration probeInterval = DEFAULT_PROBE_INTERVAL;
        private Duration firstProbeDelay = DEFAULT_FIRST_PROBE_DELAY;
        private Duration drainTimeout = DEFAULT_DRAIN_TIMEOUT;
        private MeterRegistry registry = Metrics.globalRegistry;

        private Builder(ClientTransport rdma, ClientTransport tcp) {
            this.rdma = Objects.requireNonNull(rdma, "rdma");
            this.tcp = Objects.requireNonNull(tcp, "tcp");
        }

        /** How long one RDMA connect may take; default {@link #DEFAULT_RDMA_CONNECT_TIMEOUT}. */
        public Builder rdmaConnectTimeout(Duration timeout) {
            this.rdmaConnectTimeout = positive("rdmaConnectTimeout", timeout);
            return this;
        }

        /** How long a whole connect may take; default {@link #DEFAULT_TOTAL_CONNECT_TIMEOUT}. Must exceed the RDMA connect timeout. */
        public Builder totalConnectTimeout(Duration timeout) {
            this.totalConnectTimeout = positive("totalConnectTimeout", timeout);
            return this;
        }

        /** The longest pause between probes while on TCP; default {@link #DEFAULT_PROBE_INTERVAL}. */
        public Builder probeInterval(Duration interval) {
            this.probeInterval = positive("probeInterval", interval);
            return this;
        }

        /** The pause before the first probe and the first back-off step; default {@link #DEFAULT_FIRST_PROBE_DELAY}. */
        public Builder firstProbeDelay(Duration delay) {
            this.firstProbeDelay = positive("firstProbeDelay", delay);
            return this;
        }

        /** How long TCP streams may run on after the return to RDMA; default {@link #DEFAULT_DRAIN_TIMEOUT}. */
        public Builder drainTimeout(Duration timeout) {
            this.drainTimeout = positive("drainTimeout", timeout);
            return this;
        }

        /** Where {@code rdma.fallbacks} and {@code rdma.returns} are counted; default {@link Metrics#globalRegistry}. */
        public Builder meterRegistry(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** The transport; fails when the timeouts contradict each other, saying which. */
        public FallbackClientTransport build() {
            if (totalConnectTimeout.compareTo(rdmaConnectTimeout) <= 0) {
                throw new IllegalArgumentException("totalConnectTimeout (" + totalConnectTimeout + ") must exceed rdmaConnectTimeout ("
                        + rdmaConnectTimeout + "), or no time is left for the TCP fallback");
            }
            if (firstProbeDelay.compareTo(probeInterval) > 0) {
                throw new IllegalArgumentException("firstProbeDelay (" + firstProbeDelay + ") must not exceed probeInterval ("
                        + probeInterval + "), the cap of the back-off");
            }
            return new FallbackClientTransport(this);
        }

        private static Duration positive(String name, Duration d) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, got " + d);
            }
            return d;
        }
    }
}
