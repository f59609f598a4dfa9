package io.reactorrdma.rsocket.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.reactorrdma.rsocket.shard.CallOptions;
import io.reactorrdma.rsocket.shard.ShardClient;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.messaging.rsocket.RSocketRequester;
import org.springframework.messaging.rsocket.RSocketStrategies;
import org.springframework.util.InvalidMimeTypeException;
import org.springframework.util.MimeType;
import org.springframework.util.MimeTypeUtils;
import reactor.core.publisher.Mono;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The replicated shard clients configured under {@code reactor.rdma.rsocket.client.shards.<name>.replicas}
 * ({@code host:port} of each replica's RDMA RSocket server), with the policies of
 * {@code reactor.rdma.rsocket.client.shard.*} (timeout, idempotent-by-default, max-attempts, retry
 * budget, hedging; defaults {@link ShardClient}'s {@code DEFAULT_*}):
 *
 * <pre>{@code
 * ShardClient ps0 = shards.shardClient("ps-0");             // one per name, shared, disposed with the context
 * Mono<Payload> p = ps0.requestResponse(Mono.just(request)).contextWrite(CallOptions.idempotent());
 *
 * RSocketRequester requester = shards.requester("ps-0");    // Spring's requester over the same shard client
 * Mono<Reply> r = requester.route("fetch").data(request).retrieveMono(Reply.class);
 * }</pre>
 *
 * Replicas are reached through {@link RdmaRSocketRequesters#transport(String, int)}, so with
 * {@code reactor.rdma.rsocket.client.tcp-fallback=true} each replica connection falls back to its
 * server's TCP port when RDMA cannot connect, and returns to RDMA once it can. A shard client is
 * built (and starts connecting) on its first use; {@link #destroy()}, run when the context closes,
 * disposes every one. Per-call options ({@link CallOptions}) travel in the Reactor context; with a
 * requester write them on the returned {@code Mono}: {@code .contextWrite(CallOptions.idempotent())}.
 */
public class RdmaShardClients implements DisposableBean {

    /**
     * Default of {@code reactor.rdma.rsocket.client.shard.data-mime-type}: {@code application/json}, what
     * Boot's requester builder sends with Jackson on the class path; a {@link #requester} must match its
     * server's codecs.
     */
    public static final String DEFAULT_DATA_MIME_TYPE = MimeTypeUtils.APPLICATION_JSON_VALUE;
    /** The metadata MIME type of the replica connections: RSocket composite metadata, as Spring's requesters use for routes. */
    static final MimeType METADATA_MIME_TYPE = MimeType.valueOf("message/x.rsocket.composite-metadata.v0");

    private static final Logger LOG = Loggers.getLogger(RdmaShardClients.class);
    private static final String AT = "reactor.rdma.rsocket.client.";

    private final Map<String, List<InetSocketAddress>> shards;
    private final RdmaProperties.ShardPolicy policy;
    private final MimeType dataMimeType;
    private final RdmaRSocketRequesters requesters;
    private final Supplier<MeterRegistry> registry;
    private final Supplier<RSocketStrategies> strategies;
    private final Map<String, ShardClient> clients = new LinkedHashMap<>();
    private boolean destroyed;

    /**
     * Checks {@code client}'s shards and shard policy ({@link InvalidRdmaPropertyException} naming the
     * property on a bad value); {@code requesters} gives the replica transports, {@code registry} the
     * meters' registry (null: {@link Metrics#globalRegistry}), {@code strategies} the codecs of {@link #requester}.
     */
    public RdmaShardClients(RdmaProperties.Client client, RdmaRSocketRequesters requesters, Supplier<MeterRegistry> registry,
                            Supplier<RSocketStrategies> strategies) {
        Objects.requireNonNull(client, "client");
        this.requesters = Objects.requireNonNull(requesters, "requesters");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.strategies = Objects.requireNonNull(strategies, "strategies");
        this.policy = client.getShard();
        Map<String, List<InetSocketAddress>> parsed = new LinkedHashMap<>();
        client.getShards().forEach((name, shard) -> parsed.put(name, replicas(name, shard.getReplicas())));
        this.shards = Map.copyOf(parsed);
        this.dataMimeType = mimeType(policy.getDataMimeType());
        configure(ShardClient.builder(), policy); // checks the policy now: startup fails on a bad value
    }

    /** The configured shard names. */
    public Set<String> names() {
        return shards.keySet();
    }

    /** The replica addresses of shard {@code name}, in the configured order. */
    public List<InetSocketAddress> replicas(String name) {
        return addresses(name);
    }

    /**
     * The shard client of shard {@code name}: built on first use (it starts connecting to every
     * replica at once), the same one afterwards; do not dispose it, the context does.
     */
    public synchronized ShardClient shardClient(String name) {
        if (destroyed) {
            throw new IllegalStateException("the application context is closed: its shard clients are disposed");
        }
        return clients.computeIfAbsent(name, n -> {
            ShardClient c = builder(n).build();
            LOG.debug("shard {}: client to replicas {}", n, addresses(n));
            return c;
        });
    }

    /**
     * A fresh builder for shard {@code name} with the configured replicas, transports, policies and
     * meter registry, to change before building; the client built from it is the caller's to dispose.
     */
    public ShardClient.Builder builder(String name) {
        List<InetSocketAddress> addresses = addresses(name);
        MeterRegistry meters = registry.get();
        ShardClient.Builder b = ShardClient.builder()
                .name(name)
                .replicas(addresses)
                .transport(a -> requesters.transport(a.getHostString(), a.getPort()))
                .meterRegistry(meters == null ? Metrics.globalRegistry : meters)
                .connector(c -> c.dataMimeType(dataMimeType.toString()).metadataMimeType(METADATA_MIME_TYPE.toString()));
        return configure(b, policy);
    }

    /**
     * Spring's {@link RSocketRequester} over {@link #shardClient shardClient(name)}, with the
     * application's {@link RSocketStrategies}: routes, codecs and retrieve* as usual, each request
     * going through the shard client's replica selection, retries and hedging. Disposing the
     * requester leaves the shard client open (the context owns it).
     */
    public RSocketRequester requester(String name) {
        return RSocketRequester.wrap(new ShardClientRSocket(shardClient(name)), dataMimeType, METADATA_MIME_TYPE, strategies.get());
    }

    /**
     * Disposes every shard client built and waits (at most 30 s) until their connections closed, so
     * that they close on resources still alive (the context calls it on close, before it disposes
     * the resources).
     */
    @Override
    public synchronized void destroy() {
        destroyed = true;
        List<Mono<Void>> closing = new ArrayList<>();
        for (ShardClient c : clients.values()) {
            c.dispose();
            closing.add(c.onClose().onErrorResume(e -> Mono.empty()));
        }
        clients.clear();
        try {
            Mono.when(closing).block(CLOSE_TIMEOUT);
        } catch (RuntimeException e) {
            LOG.warn("shard clients did not close within " + CLOSE_TIMEOUT + "; closing the context anyway", e);
        }
    }

    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private List<InetSocketAddress> addresses(String name) {
        Objects.requireNonNull(name, "name");
        List<InetSocketAddress> a = shards.get(name);
        if (a == null) {
            throw new IllegalArgumentException("no shard named '" + name + "'; configured: " + shards.keySet()
                    + "; set " + AT + "shards." + name + ".replicas=host:port,host:port");
        }
        return a;
    }

    private static ShardClient.Builder configure(ShardClient.Builder b, RdmaProperties.ShardPolicy p) {
        String at = AT + "shard.";
        apply(at + "timeout", p.getTimeout(), () -> b.timeout(p.getTimeout()));
        b.idempotentByDefault(p.isIdempotentByDefault());
        apply(at + "max-attempts", p.getMaxAttempts(), () -> b.maxAttempts(p.getMaxAttempts()));
        apply(at + "retry-budget-ratio", p.getRetryBudgetRatio(),
                () -> b.retryBudget(p.getRetryBudgetRatio(), ShardClient.DEFAULT_RETRY_BUDGET_MIN_PER_SECOND,
                        ShardClient.DEFAULT_BUDGET_WINDOW));
        apply(at + "retry-budget-min-per-second", p.getRetryBudgetMinPerSecond(),
                () -> b.retryBudget(ShardClient.DEFAULT_RETRY_BUDGET_RATIO, p.getRetryBudgetMinPerSecond(),
                        ShardClient.DEFAULT_BUDGET_WINDOW));
        apply(at + "budget-window", p.getBudgetWindow(), () -> b.retryBudget(ShardClient.DEFAULT_RETRY_BUDGET_RATIO,
                ShardClient.DEFAULT_RETRY_BUDGET_MIN_PER_SECOND, p.getBudgetWindow()));
        b.retryBudget(p.getRetryBudgetRatio(), p.getRetryBudgetMinPerSecond(), p.getBudgetWindow());
        b.hedging(p.isHedging());
        apply(at + "hedge-quantile", p.getHedgeQuantile(), () -> b.hedgePolicy(p.getHedgeQuantile(), ShardClient.DEFAULT_HEDGE_FRACTION));
        apply(at + "hedge-fraction", p.getHedgeFraction(), () -> b.hedgePolicy(p.getHedgeQuantile(), p.getHedgeFraction()));
        apply(at + "connect-timeout", p.getConnectTimeout(), () -> b.connectTimeout(p.getConnectTimeout()));
        return b;
    }

    /** Runs one builder setter; its refusal becomes an {@link InvalidRdmaPropertyException} naming {@code property}. */
    private static void apply(String property, Object value, Runnable setter) {
        try {
            if (value == null) {
                throw new IllegalArgumentException("it must be set");
            }
            setter.run();
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new InvalidRdmaPropertyException(property, value, e.getMessage() + "; unset it for ShardClient's default");
        }
    }

    private static List<InetSocketAddress> replicas(String shard, List<String> values) {
        String property = AT + "shards." + shard + ".replicas";
        if (values == null || values.isEmpty()) {
            throw new InvalidRdmaPropertyException(property, values, "a shard needs at least one replica: host:port,host:port");
        }
        List<InetSocketAddress> out = new ArrayList<>(values.size());
        for (String v : values) {
            String s = v == null ? "" : v.trim();
            int colon = s.lastIndexOf(':');
            int port = -1;
            if (colon > 0 && colon < s.length() - 1) {
                try {
                    port = Integer.parseInt(s.substring(colon + 1));
                } catch (NumberFormatException e) {
                    port = -1;
                }
            }
            if (port < 1 || port > 65535) {
                throw new InvalidRdmaPropertyException(property, values, "'" + v + "' is not host:port with a port of 1 to 65535"
                        + " (the replica's reactor.rdma.rsocket.server.port)");
            }
            String host = s.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1); // [::1]:7000
            }
            InetSocketAddress a = InetSocketAddress.createUnresolved(host, port);
            if (out.contains(a)) {
                throw new InvalidRdmaPropertyException(property, values, "replica " + v + " is listed twice");
            }
            out.add(a);
        }
        return List.copyOf(out);
    }

    private static MimeType mimeType(String value) {
        try {
            return MimeType.valueOf(Objects.requireNonNull(value, "no value"));
        } catch (InvalidMimeTypeException | NullPointerException e) {
            throw new InvalidRdmaPropertyException(AT + "shard.data-mime-type", value,
                    "not a MIME type (" + e.getMessage() + "), e.g. application/json or application/cbor");
        }
    }
}
