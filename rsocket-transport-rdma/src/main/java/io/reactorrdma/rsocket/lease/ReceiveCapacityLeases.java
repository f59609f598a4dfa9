package io.reactorrdma.rsocket.lease;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.rsocket.RdmaDuplexConnection;
import io.rsocket.DuplexConnection;
import io.rsocket.core.RSocketServer;
import io.rsocket.plugins.DuplexConnectionInterceptor;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * RSocket leases whose request count follows the server's receive capacity, so clients stop
 * sending before the server's queues fill. Apply it to an {@link RSocketServer} (RDMA, TCP or
 * both: connections applied to one instance share its capacity):
 *
 * <pre>{@code
 * ReceiveCapacityLeases leases = ReceiveCapacityLeases.builder().build();
 * leases.applyTo(RSocketServer.create(acceptor)).bind(RdmaServerTransport.create("0.0.0.0", 7000));
 * // clients must honour leases:
 * RSocketConnector.create().lease().connect(transport);
 * }</pre>
 *
 * <p>Capacity: each RDMA connection brings its receive window ({@link RdmaDuplexConnection#receiveWindow()},
 * the engine's {@code socketMessageWindow}, default {@value EngineConfig#DEFAULT_SOCKET_MESSAGE_WINDOW});
 * other connections bring {@link Builder#connectionCapacity(int)}. A request holds a slot from the
 * moment it is granted until it terminates or is cancelled; the server grants no more than
 * {@code capacity - in progress - granted and not arrived}, nor more than the receive headroom its
 * engines have right now ({@link RdmaDuplexConnection#receiveHeadroom()}), nor, if set, more than
 * {@link Builder#maxInFlight(int)} in all. A connection gets a new lease only once every request of
 * its previous lease has arrived (RSocket replaces the count rather than adding to it, so this is
 * what keeps a request sent under an old lease from being rejected under a new one), at most an
 * equal share of the capacity, and only when a quarter of a share is free — or, for a connection
 * with nothing in progress, one request. Leases do not expire by default
 * ({@link #DEFAULT_LEASE_TIME_TO_LIVE}); instead, the unused grant of a connection idle for
 * {@link Builder#idleGrantTimeout(Duration)} is lent to a connection that holds none and finds
 * nothing free, so a connection that opened alone and went idle cannot starve later or smaller ones.
 *
 * <p>Meters: {@code rdma.recovery.lease.granted} (leases sent), {@code rdma.recovery.lease.requests.granted}
 * (requests they allow), {@code rdma.recovery.lease.exhausted} (a connection used its lease up and had to
 * wait for capacity), {@code rdma.recovery.lease.rejected} (requests the server rejected for lack of a
 * lease: a client that does not honour leases).
 */
public final class ReceiveCapacityLeases {

    /**
     * Lease time to live: {@code Integer.MAX_VALUE} ms (about 24 days), i.e. leases end by being
     * used, not by time, because an expiring lease would reject requests in flight as it expires.
     */
    public static final Duration DEFAULT_LEASE_TIME_TO_LIVE = Duration.ofMillis(Integer.MAX_VALUE);

    /** Requests a connection that is not RDMA (TCP) may have in progress: the RDMA engine's default receive window. */
    public static final int DEFAULT_CONNECTION_CAPACITY = EngineConfig.DEFAULT_SOCKET_MESSAGE_WINDOW;

    /** No server-wide cap beyond the connections' capacity (0). */
    public static final int DEFAULT_MAX_IN_FLIGHT = 0;

    /**
     * How often connections waiting for a lease are looked at again while receive headroom (which
     * the engines do not signal) holds them back: 5 ms. Requests ending wake them at once.
     */
    public static final Duration DEFAULT_RECHECK_INTERVAL = Duration.ofMillis(5);

    /**
     * How long a connection must have had nothing in progress and no request arriving before its
     * unused grant is lent to a connection that holds none and finds nothing free: 250 ms.
     */
    public static final Duration DEFAULT_IDLE_GRANT_TIMEOUT = Duration.ofMillis(250);

    private final ReceiveCapacity ledger;
    private final Counter rejected;
    private final int connectionCapacity;
    private final AtomicInteger connectionIds = new AtomicInteger();

    private ReceiveCapacityLeases(Builder b) {
        this.connectionCapacity = b.connectionCapacity;
        MeterRegistry registry = b.meterRegistry;
        this.rejected = Counter.builder("rdma.recovery.lease.rejected")
                .description("Requests the server rejected because they came without a lease").register(registry);
        this.ledger = new ReceiveCapacity(b.leaseTimeToLive, b.maxInFlight, b.recheckInterval, b.idleGrantTimeout, Schedulers.parallel(),
                Counter.builder("rdma.recovery.lease.granted").description("Leases the server sent").register(registry),
                Counter.builder("rdma.recovery.lease.requests.granted")
                        .description("Requests the server's leases allowed").register(registry),
                Counter.builder("rdma.recovery.lease.exhausted")
                        .description("Times a connection used its lease up and waited for receive capacity").register(registry));
    }

    /** A builder with the defaults: see the {@code DEFAULT_*} constants. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Enables leases on {@code server} and counts its connections' capacity here. Apply it once per
     * server: it registers a connection interceptor, and a second one would count each connection
     * twice. Several servers may share one instance (and so one capacity ledger).
     *
     * @return {@code server}, for chaining
     */
    public RSocketServer applyTo(RSocketServer server) {
        Objects.requireNonNull(server, "server");
        return server
                .lease(spec -> spec.sender(new CapacityLeaseSender(ledger, rejected, connectionIds.incrementAndGet())))
                .interceptors(registry -> registry.forConnection(this::track));
    }

    /** Requests in progress on the server's connections now. */
    public int inFlight() {
        return ledger.inFlight();
    }

    /** Requests the server could grant now (capacity less work in progress and grants not yet used). */
    public int available() {
        return ledger.available();
    }

    /** Connections with leases now. */
    public int connections() {
        return ledger.connections();
    }

    private DuplexConnection track(DuplexConnectionInterceptor.Type type, DuplexConnection connection) {
        if (type != DuplexConnectionInterceptor.Type.SOURCE) {
            return connection;
        }
        ReceiveCapacity.Source source;
        if (connection instanceof RdmaDuplexConnection) {
            RdmaDuplexConnection rdma = (RdmaDuplexConnection) connection;
            int window = rdma.receiveWindow();
            source = new ReceiveCapacity.Source() {
                @Override
                public int capacity() {
                    return window;
                }

                @Override
                public int headroom() {
                    return rdma.receiveHeadroom();
                }
            };
        } else {
            int capacity = connectionCapacity;
            source = new ReceiveCapacity.Source() {
                @Override
                public int capacity() {
                    return capacity;
                }

                @Override
                public int headroom() {
                    return capacity;
                }
            };
        }
        ledger.addSource(source);
        connection.onClose().doFinally(signal -> ledger.removeSource(source)).subscribe(null, e -> { });
        return connection;
    }

    @Override
    public String toString() {
        return "ReceiveCapacityLeases" + ledger;
    }

    /** Options of {@link ReceiveCapacityLeases}; every one has a {@code DEFAULT_*}. */
    public static final class Builder {
        private MeterRegistry meterRegistry = Metrics.globalRegistry;
        private Duration leaseTimeToLive = DEFAULT_LEASE_TIME_TO_LIVE;
        private int connectionCapacity = DEFAULT_CONNECTION_CAPACITY;
        private int maxInFlight = DEFAULT_MAX_IN_FLIGHT;
        private Duration recheckInterval = DEFAULT_RECHECK_INTERVAL;
        private Duration idleGrantTimeout = DEFAULT_IDLE_GRANT_TIMEOUT;

        private Builder() {
        }

        /**
         * How long a connection must be idle on its lease (nothing in progress, no request arriving)
         * before its unused grant is lent to a connection holding none that finds nothing free;
         * default {@link #DEFAULT_IDLE_GRANT_TIMEOUT}. Shorter serves late connections sooner; a lender
         * that then uses its grant after all can take requests in progress beyond the capacity (or
         * {@code maxInFlight}) by what it was lent.
         */
        public Builder idleGrantTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "idleGrantTimeout");
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("idleGrantTimeout must not be negative, was " + timeout);
            }
            this.idleGrantTimeout = timeout;
            return this;
        }

        /** Where the {@code rdma.recovery.lease.*} meters go; default {@code Metrics.globalRegistry}. */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "meterRegistry");
            return this;
        }

        /** Time to live of each lease; default {@link #DEFAULT_LEASE_TIME_TO_LIVE}. */
        public Builder leaseTimeToLive(Duration ttl) {
            Objects.requireNonNull(ttl, "leaseTimeToLive");
            if (ttl.isNegative() || ttl.isZero() || ttl.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("leaseTimeToLive must be between 1 ms and Integer.MAX_VALUE ms, was " + ttl
                        + "; the LEASE frame carries it in 31 bits of milliseconds");
            }
            this.leaseTimeToLive = ttl;
            return this;
        }

        /** Requests a non-RDMA (TCP) connection may have in progress; default {@link #DEFAULT_CONNECTION_CAPACITY}. */
        public Builder connectionCapacity(int requests) {
            if (requests < 1) {
                throw new IllegalArgumentException("connectionCapacity must be at least 1, was " + requests);
            }
            this.connectionCapacity = requests;
            return this;
        }

        /**
         * A server-wide cap on requests in progress and granted, on top of the connections' receive
         * capacity; default {@link #DEFAULT_MAX_IN_FLIGHT} (none).
         */
        public Builder maxInFlight(int requests) {
            if (requests < 0) {
                throw new IllegalArgumentException("maxInFlight must be 0 (no cap) or positive, was " + requests);
            }
            this.maxInFlight = requests;
            return this;
        }

        /** How often to look again at connections that wait for receive headroom; default {@link #DEFAULT_RECHECK_INTERVAL}. */
        public Builder recheckInterval(Duration interval) {
            Objects.requireNonNull(interval, "recheckInterval");
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("recheckInterval must be positive, was " + interval);
            }
            this.recheckInterval = interval;
            return this;
        }

        /** The leases, ready to {@link ReceiveCapacityLeases#applyTo apply} to one or more servers. */
        public ReceiveCapacityLeases build() {
            return new ReceiveCapacityLeases(this);
        }
    }
}
