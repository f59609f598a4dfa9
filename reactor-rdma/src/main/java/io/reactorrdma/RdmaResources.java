package io.reactorrdma;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.reactorrdma.engine.EngineConfig;
import io.reactorrdma.engine.IdleStrategy;
import io.reactorrdma.engine.ThreadDomain;
import io.reactorrdma.memory.AllocatorConfig;
import io.reactorrdma.memory.AllocatorMetrics;
import io.reactorrdma.memory.RegisteredAllocator;
import io.reactorrdma.verbs.Providers;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.soft.SoftConfig;
import reactor.core.Disposable;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

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

    private final String name;
    private final VerbsContext context;
    private final RegisteredAllocator memory;
    private final ThreadDomain[] domains;
    private final ExecutorService connector;
    private final AtomicInteger next = new AtomicInteger();
    private final EngineConfig engineConfig;
    /** Connections that may still hold undelivered messages: released when these resources are disposed. */
    private final Set<RdmaConnection> unread = ConcurrentHashMap.newKeySet();
    private volatile boolean disposed;

    private RdmaResources(Builder b) {
        this.name = b.name;
        this.engineConfig = b.engine;
        this.context = Providers.open(b.provider, b.soft);
        try {
            this.memory = new RegisteredAllocator(context.allocPd(), b.allocator);
            AtomicInteger n = new AtomicInteger();
            this.connector = Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, name + "-connect-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
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

    /**
     * The JVM-wide default resources (like Reactor Netty's {@code TcpResources}), created with the
     * defaults on first use; used by the transports' {@code create(host, port)} shortcuts.
     */
    public static synchronized RdmaResources global() {
        if (global == null || global.isDisposed()) {
            global = create("reactor-rdma");
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

    public EngineConfig engineConfig() {
        return engineConfig;
    }

    /** The thread domains, for metrics and diagnostics. */
    public ThreadDomain[] domains() {
        return domains.clone();
    }

    /** The domain the next connection or accepted engine goes to (round-robin). */
    ThreadDomain nextDomain() {
        if (disposed) {
            throw new IllegalStateException("RdmaResources " + name + " are disposed");
        }
        return domains[Math.floorMod(next.getAndIncrement(), domains.length)];
    }

    void track(RdmaConnection c) {
        unread.add(c);
    }

    void untrack(RdmaConnection c) {
        unread.remove(c);
    }

    ExecutorService connector() {
        return connector;
    }

    @Override
    public boolean isDisposed() {
        return disposed;
    }

    /** Closes the thread domains (their connections end), the allocator and the provider context. */
    @Override
    public void dispose() {
        if (disposed) {
            return;
        }
        disposed = true;
        for (ThreadDomain d : domains) {
            d.close();
        }
        for (RdmaConnection c : unread) {
            c.releaseUndelivered();
        }
        connector.shutdownNow();
        memory.closeAndReport();
        context.close();
    }

    /** Builds {@link RdmaResources}; every setting has a documented default. */
    public static final class Builder {
        private final String name;
        private String provider = System.getProperty("reactor.rdma.provider", "auto");
        private SoftConfig soft = SoftConfig.fromSystemProperties();
        private int threads = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
        private IdleStrategy idle = IdleStrategy.BACK_OFF;
        private EngineConfig engine = EngineConfig.defaults();
        private AllocatorConfig allocator = AllocatorConfig.defaults();
        private int maxEnginesPerThread = 64;
        private MeterRegistry registry;

        private Builder(String name) {
            this.name = Objects.requireNonNull(name, "name");
        }

        /** {@code auto}, {@code soft}, {@code shm}, {@code loopback} or {@code disni}. */
        public Builder provider(String provider) {
            this.provider = provider;
            return this;
        }

        public Builder softConfig(SoftConfig soft) {
            this.soft = Objects.requireNonNull(soft);
            return this;
        }

        /** Thread domains (I/O threads). */
        public Builder threads(int threads) {
            if (threads < 1) throw new IllegalArgumentException("threads must be at least 1, got " + threads);
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

        /** Engines (queue pairs) one thread domain may drive; sizes its completion queue. */
        public Builder maxEnginesPerThread(int n) {
            if (n < 1) throw new IllegalArgumentException("maxEnginesPerThread must be at least 1, got " + n);
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
