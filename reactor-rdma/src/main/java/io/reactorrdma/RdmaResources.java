package io.reactorrdma;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import io.micrometer.core.instrument.Tags;
import io.reactorrdma.config.EngineConfig;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.engine.ThreadDomain;
import io.reactorrdma.config.AllocatorConfig;
import io.reactorrdma.config.DisniConfig;
import io.reactorrdma.engine.EngineMetrics;
import io.reactorrdma.memory.AllocatorMetrics;
import io.reactorrdma.memory.RegisteredAllocator;
import io.reactorrdma.verbs.provider.Providers;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.config.ProviderConfig;
import io.reactorrdma.config.SoftConfig;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * What RDMA servers and clients run on, like Reactor Netty's {@code LoopResources}: a verbs
 * provider context, the registered allocator, the thread domains (one I/O thread each), and the
 * meters. Create one per application (or per provider) and share it; dispose it last.
 *
 * <pre>{@code
 * RdmaResources resources = RdmaResources.builder("ps").provider("shm").threads(2).build();
 * }</pre>
 */
public final class RdmaResources implements Disposable {

    private static final Logger LOG = Loggers.getLogger(RdmaResources.class);

    /** How long {@link #dispose()} waits for the I/O threads to end (all together, not each). */
    public static final Duration DISPOSE_TIMEOUT = Duration.ofSeconds(10);

    private final String name;
    private final VerbsContext context;
    private final RegisteredAllocator memory;
    private final ThreadDomain[] domains;
    private final ExecutorService connector;
    private final AtomicInteger next = new AtomicInteger();
    private final EngineConfig engineConfig;
    /** Connections that may still hold undelivered messages: released when these resources are disposed. */
    private final Set<InboundMessages> unread = ConcurrentHashMap.newKeySet();
    private final int maxEnginesPerThread;
    private volatile boolean disposed;
    private final AtomicBoolean disposeStarted = new AtomicBoolean();
    /** Completes when everything is closed: I/O threads ended, allocator and provider context closed. */
    private final CompletableFuture<Void> disposal = new CompletableFuture<>();

    private RdmaResources(Builder b) {
        this.name = b.name;
        this.engineConfig = b.engine;
        this.context = b.opener.apply(b.provider);
        try {
            this.memory = new RegisteredAllocator(context.allocPd(), b.allocator);
            AtomicInteger n = new AtomicInteger();
            this.connector = Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, name + "-connect-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
            this.maxEnginesPerThread = b.maxEnginesPerThread;
            this.domains = new ThreadDomain[b.threads];
            for (int i = 0; i < b.threads; i++) {
                domains[i] = new ThreadDomain(name + "-io-" + i, context, memory, b.engine, b.idle, b.maxEnginesPerThread, connector);
            }
            if (b.registry != null) {
                new AllocatorMetrics(memory, Tags.of("resources", name)).bindTo(b.registry);
                for (ThreadDomain d : domains) {
                    d.metrics().bindTo(b.registry, Tags.of("resources", name, "domain", d.name()));
                }
            }
        } catch (RuntimeException e) {
            context.close();
            throw e;
        }
    }

    private static RdmaResources global;
    private static boolean shutdownHookInstalled;

    /**
     * The JVM-wide default resources (like Reactor Netty's {@code TcpResources}), created with the
     * defaults on first use; used by the transports' {@code create(host, port)} shortcuts. A
     * shutdown hook disposes them at JVM exit, so their shm files do not outlive the process.
     */
    public static synchronized RdmaResources global() {
        if (global == null || global.isDisposed()) {
            global = create("reactor-rdma");
            if (!shutdownHookInstalled) {
                shutdownHookInstalled = true;
                Runtime.getRuntime().addShutdownHook(new Thread(RdmaResources::disposeGlobal, "reactor-rdma-global-shutdown"));
            }
        }
        return global;
    }

    /** Disposes the JVM-wide default resources, if they were created. */
    public static synchronized void disposeGlobal() {
        if (global != null) {
            global.dispose();
            global = null;
        }
    }

    /** Resources with defaults: provider {@code auto}, one thread per two cores, back-off idling. */
    public static RdmaResources create(String name) {
        return builder(name).build();
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    public String name() {
        return name;
    }

    /** The provider context (for tools that need the verbs directly). */
    public VerbsContext context() {
        return context;
    }

    /** The registered allocator: {@code allocator().byteBufAllocator()} gives buffers that need no copy to send. */
    public RegisteredAllocator allocator() {
        return memory;
    }

    /**
     * The registered allocator's Netty view, like {@link RdmaConnection#alloc()}: buffers from it need
     * no copy to send on any connection of these resources.
     */
    public ByteBufAllocator alloc() {
        return memory.byteBufAllocator();
    }

    /**
     * The Netty view of memory every connected peer may READ: allocate here what the application
     * serves to many peers in large pieces (an embedding table, a tensor) and send slices of it; a
     * peer pulls them where they lie, with no copy and no wake-up of the sender. Never remote-writable.
     */
    public ByteBufAllocator allocRemoteReadable() {
        return memory.remoteReadableByteBufAllocator();
    }

    public EngineConfig engineConfig() {
        return engineConfig;
    }

    /**
     * What these resources hold now, read without creating or starting anything (for health
     * checks and diagnostics).
     */
    public RdmaResourcesStatistics statistics() {
        long engines = 0;
        long sockets = 0;
        long engineFailures = 0;
        for (ThreadDomain d : domains) {
            EngineMetrics m = d.metrics();
            engines += m.engines();
            sockets += m.socketsOpen();
            engineFailures += m.engineFailures();
        }
        long registered = memory.local().statistics().registeredBytes() + memory.remoteWritable().statistics().registeredBytes()
                + memory.destinationStatistics().registeredBytes();
        return new RdmaResourcesStatistics(context.providerName(), context.deviceName(), domains.length, engines, engineFailures,
                sockets, memory.liveBuffers(), registered);
    }

    /**
     * The thread domains (the engine's, so not public: applications read {@link #statistics()}; tests
     * reach these through their own accessor).
     */
    ThreadDomain[] domains() {
        return domains.clone();
    }

    /** The domain the next connection or accepted engine goes to (round-robin). */
    ThreadDomain nextDomain() {
        if (disposed) {
            throw new IllegalStateException("RdmaResources " + name + " are disposed");
        }
        return domains[Math.floorMod(next.getAndIncrement(), domains.length)];
    }

    void track(InboundMessages c) {
        unread.add(c);
    }

    void untrack(InboundMessages c) {
        unread.remove(c);
    }

    /**
     * The next domain, round-robin, that can take another engine; when every domain already
     * drives {@code maxEnginesPerThread} engines, fails saying so.
     */
    ThreadDomain domainWithRoom() {
        for (int i = 0; i < domains.length; i++) {
            ThreadDomain d = nextDomain();
            if (d.hasRoom()) {
                return d;
            }
        }
        throw new IllegalStateException("every thread domain of " + name + " already drives " + maxEnginesPerThread
                + " engines (maxEnginesPerThread) across " + domains.length + " thread(s); raise maxEnginesPerThread or threads");
    }

    ExecutorService connector() {
        return connector;
    }

    @Override
    public boolean isDisposed() {
        return disposed;
    }

    /**
     * Disposes as {@link #disposeLater()} does and waits for it, at most {@link #DISPOSE_TIMEOUT}
     * for all I/O threads together. Called on one of these I/O threads (a handler, a callback), it
     * does not wait: a thread cannot wait for its own end; disposal completes once it returns.
     */
    @Override
    public void dispose() {
        Mono<Void> closing = disposeLater();
        if (onIoThread()) {
            closing.subscribe(null, e -> LOG.warn("disposing resources " + name + " failed: " + e, e));
            return;
        }
        try {
            closing.block(DISPOSE_TIMEOUT);
        } catch (IllegalStateException timeout) {
            if (!disposal.isDone()) {
                LOG.warn("resources " + name + ": an I/O thread is still busy " + DISPOSE_TIMEOUT.toSeconds()
                        + " s after dispose (a task that blocks it?); the allocator and provider context close when it ends");
            } else {
                throw timeout;
            }
        }
    }

    /**
     * Like Reactor Netty's {@code LoopResources.disposeLater()}: disposes when subscribed, without
     * blocking, and completes once everything is closed — the I/O threads ended (their connections
     * ended; messages not yet delivered were released), then the allocator and the provider context
     * (the shm files removed). Subscribing again after that completes at once.
     */
    public Mono<Void> disposeLater() {
        return Mono.defer(() -> {
            startDisposal();
            return Mono.fromFuture(disposal, true);
        });
    }

    private void startDisposal() {
        if (!disposeStarted.compareAndSet(false, true)) {
            return;
        }
        disposed = true;
        CompletableFuture<?>[] ended = new CompletableFuture<?>[domains.length];
        for (int i = 0; i < domains.length; i++) {
            ended[i] = domains[i].closeAsync(); // all together: no thread waits for another
        }
        CompletableFuture.allOf(ended).whenComplete((ignored, error) -> finishDisposal());
    }

    /** Once every I/O thread has ended (on the last of them, or here when they had). */
    private void finishDisposal() {
        try {
            for (InboundMessages c : unread) {
                c.releaseAll(); // every message not yet delivered
            }
            connector.shutdownNow();
            memory.closeAndReport();
            context.close();
            disposal.complete(null);
        } catch (Throwable t) {
            disposal.completeExceptionally(t);
        }
    }

    private boolean onIoThread() {
        for (ThreadDomain d : domains) {
            if (d.inDomain()) {
                return true;
            }
        }
        return false;
    }

    /** Builds {@link RdmaResources}; every setting has a documented default. */
    public static final class Builder {
        private final String name;
        private ProviderConfig provider = ProviderConfig.fromSystemProperties();
        private Function<ProviderConfig, VerbsContext> opener = Providers::open;
        private int threads = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
        private IdleStrategy idle = IdleStrategy.BACK_OFF;
        private EngineConfig engine = EngineConfig.defaults();
        private AllocatorConfig allocator = AllocatorConfig.defaults();
        private int maxEnginesPerThread = 64;
        private MeterRegistry registry;

        private Builder(String name) {
            this.name = Objects.requireNonNull(name, "name");
        }

        /**
         * {@code auto}, {@code soft}, {@code shm}, {@code loopback} or {@code disni} (default: the
         * system property {@code reactor.rdma.provider}, else {@code auto}).
         */
        public Builder provider(String provider) {
            this.provider = this.provider.withName(provider);
            return this;
        }

        /** The provider to open and its settings, all at once (default: {@link ProviderConfig#fromSystemProperties()}). */
        public Builder provider(ProviderConfig provider) {
            this.provider = Objects.requireNonNull(provider, "provider");
            return this;
        }

        /** The soft provider's settings (default: {@link SoftConfig#fromSystemProperties()}). */
        public Builder softConfig(SoftConfig soft) {
            this.provider = provider.withSoft(Objects.requireNonNull(soft, "soft"));
            return this;
        }

        /** The DiSNI provider's settings (default: {@link DisniConfig#fromSystemProperties()}). */
        public Builder disniConfig(DisniConfig disni) {
            this.provider = provider.withDisni(Objects.requireNonNull(disni, "disni"));
            return this;
        }

        /** Opens the provider with {@code opener} instead of {@link Providers} (tests that inject provider faults). */
        Builder openWith(Function<ProviderConfig, VerbsContext> opener) {
            this.opener = Objects.requireNonNull(opener, "opener");
            return this;
        }

        /** Thread domains (I/O threads). */
        public Builder threads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("threads must be at least 1, got " + threads);
            }
            this.threads = threads;
            return this;
        }

        public Builder idle(IdleStrategy idle) {
            this.idle = Objects.requireNonNull(idle);
            return this;
        }

        public Builder engine(EngineConfig engine) {
            this.engine = Objects.requireNonNull(engine);
            return this;
        }

        public Builder allocator(AllocatorConfig allocator) {
            this.allocator = Objects.requireNonNull(allocator);
            return this;
        }

        /**
         * Engines (queue pairs) one thread domain may drive; sizes its completion queue (for their
         * send- and receive-queue depths). A server places a new connection on a domain with room;
         * when none has, the client's connect fails with a rejection that says so.
         */
        public Builder maxEnginesPerThread(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxEnginesPerThread must be at least 1, got " + n);
            }
            this.maxEnginesPerThread = n;
            return this;
        }

        /** Publishes the {@code rdma.*} meters to {@code registry}. */
        public Builder metrics(MeterRegistry registry) {
            this.registry = registry;
            return this;
        }

        public RdmaResources build() {
            return new RdmaResources(this);
        }
    }
}
