package io.reactorrdma.engine;

import io.netty.buffer.ByteBuf;
import io.netty.util.collection.IntObjectHashMap;
import io.reactorrdma.memory.RegisteredAllocator;
import io.reactorrdma.memory.RegisteredByteBufAllocator;
import io.reactorrdma.verbs.CompletionQueue;
import io.reactorrdma.verbs.ConnectionRequest;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.WorkCompletion;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * A thread domain: one I/O thread with its own completion queue and the engines it drives
 * (DESIGN.md §4). Other threads hand work over through {@link #execute}; the I/O thread polls
 * the completion queue, runs handed-over tasks, and gives each engine a scheduling turn. Sockets
 * to the same destination opened in one domain share one engine (QP multiplexing, paper §6.1).
 */
public final class ThreadDomain implements AutoCloseable {

    private static final int POLL_BATCH = 64;
    /** Empty loop turns {@link IdleStrategy#BACK_OFF} spins before it blocks: some tens of microseconds. */
    private static final int BACK_OFF_SPIN_TURNS = 1000;
    /** Empty loop turns {@link IdleStrategy#BLOCK} spins before it blocks: just enough to skip arming for a near-miss. */
    private static final int BLOCK_SPIN_TURNS = 50;

    private final String name;
    private final VerbsContext context;
    private final ProtectionDomain pd;
    private final RegisteredAllocator memory;
    private final RegisteredByteBufAllocator destinations;
    private final EngineConfig config;
    private final IdleStrategy idle;
    private final CompletionQueue cq;
    private final EngineMetrics metrics = new EngineMetrics();
    private final Executor connector;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final IntObjectHashMap<Engine> byQpn = new IntObjectHashMap<>();
    private final List<Engine> engines = new ArrayList<>();
    private final Map<InetSocketAddress, CompletableFuture<Engine>> clientEngines = new ConcurrentHashMap<>();
    /**
     * Queue pairs connected but whose engine the I/O thread has not registered yet: the peer may
     * send at once, so their completions are kept and replayed at registration.
     */
    private final java.util.Set<Integer> connecting = ConcurrentHashMap.newKeySet();
    private final IntObjectHashMap<List<WorkCompletion>> early = new IntObjectHashMap<>();
    private final WorkCompletion[] wcs = new WorkCompletion[POLL_BATCH];
    private volatile boolean running = true;
    private int idleTurns;
    /** Empty turns spent spinning before the thread blocks (BACK_OFF, BLOCK; BUSY_SPIN never blocks). */
    private final int spinTurns;
    /** Set when the loop has ended: later {@link #execute} calls run their task on the caller. */
    private volatile boolean terminated;

    public ThreadDomain(String name, VerbsContext context, RegisteredAllocator memory, EngineConfig config,
                        IdleStrategy idle, int maxEngines, Executor connector) {
        this.name = name;
        this.context = context;
        this.pd = memory.protectionDomain();
        this.memory = memory;
        this.destinations = new RegisteredByteBufAllocator(memory.remoteWritable());
        this.config = config;
        this.idle = idle;
        this.spinTurns = idle == IdleStrategy.BACK_OFF ? BACK_OFF_SPIN_TURNS : BLOCK_SPIN_TURNS;
        this.connector = connector;
        this.cq = context.createCq(maxEngines * config.sendQueueDepth());
        for (int i = 0; i < POLL_BATCH; i++) wcs[i] = new WorkCompletion();
        this.thread = new Thread(this::loop, name);
        thread.setDaemon(true);
        thread.start();
    }

    public String name() {
        return name;
    }

    public EngineMetrics metrics() {
        return metrics;
    }

    RegisteredAllocator memory() {
        return memory;
    }

    RegisteredByteBufAllocator destinations() {
        return destinations;
    }

    /** Runs {@code task} on the I/O thread. */
    public void execute(Runnable task) {
        tasks.add(task);
        if (terminated) {
            runRemainingTasks(); // the I/O thread is gone: what is handed over now is cleanup, run it here
        } else {
            wakeup();
        }
    }

    /** Wakes the I/O thread if it is idle. */
    void wakeup() {
        if (idle != IdleStrategy.BUSY_SPIN && Thread.currentThread() != thread) {
            cq.wakeup();
        }
    }

    public boolean inDomain() {
        return Thread.currentThread() == thread;
    }

    // ------------------------------------------------------------------ connecting

    /**
     * Opens a socket to {@code address}; sockets to one address share the engine of this domain
     * (connecting it first when there is none).
     */
    public CompletableFuture<EngineSocket> openSocket(InetSocketAddress address, Duration timeout) {
        CompletableFuture<Engine> engine = clientEngines.compute(address, (a, existing) ->
                existing == null || existing.isCompletedExceptionally() || (existing.isDone() && existing.join().isFailed())
                        ? connect(a, timeout) : existing);
        return engine.thenCompose(e -> {
            CompletableFuture<EngineSocket> socket = new CompletableFuture<>();
            execute(() -> {
                if (e.isFailed()) {
                    socket.completeExceptionally(new EngineException("the engine to " + e.peerName() + " failed before the socket opened"));
                } else {
                    socket.complete(e.openSocket());
                }
            });
            return socket;
        });
    }

    private CompletableFuture<Engine> connect(InetSocketAddress address, Duration timeout) {
        CompletableFuture<Engine> result = new CompletableFuture<>();
        connector.execute(() -> {
            PreparedQp prepared = null;
            try {
                prepared = prepareQp();
                var conn = context.connect(address, prepared.qp, parameters().encode(), timeout);
                ConnectionParameters peer;
                try {
                    peer = ConnectionParameters.decode(conn.remotePrivateData(), "peer " + address);
                } catch (RuntimeException e) {
                    conn.disconnect();
                    throw e;
                }
                Engine engine = new Engine(this, config, conn, peer, prepared.receives, true, null);
                execute(() -> {
                    register(engine);
                    result.complete(engine);
                });
            } catch (RuntimeException e) {
                abandon(prepared);
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /**
     * Accepts a connection request into this domain (called by a listener thread); sockets the
     * peer opens are handed to {@code acceptor} on the I/O thread.
     */
    public void accept(ConnectionRequest request, Consumer<EngineSocket> acceptor) {
        ConnectionParameters peer;
        try {
            peer = ConnectionParameters.decode(request.privateData(), "client " + request.remoteAddress());
        } catch (ProtocolException e) {
            request.reject(null);
            return;
        }
        PreparedQp prepared = null;
        try {
            prepared = prepareQp();
            var conn = request.accept(prepared.qp, parameters().encode());
            Engine engine = new Engine(this, config, conn, peer, prepared.receives, false, acceptor);
            execute(() -> register(engine));
        } catch (RuntimeException e) {
            abandon(prepared);
            throw e;
        }
    }

    /** A queue pair on this domain's completion queue with its receives posted, about to connect. */
    private record PreparedQp(QueuePair qp, ByteBuf[] receives) {
    }

    /** Creates the queue pair and posts its receives before connecting, so the peer's first SEND finds one. */
    private PreparedQp prepareQp() {
        QueuePair qp = context.createQp(pd, attributes());
        try {
            ByteBuf[] receives = Engine.postInitialReceives(qp, memory, config);
            connecting.add(qp.qpNum());
            return new PreparedQp(qp, receives);
        } catch (RuntimeException e) {
            qp.close();
            throw e;
        }
    }

    private void abandon(PreparedQp prepared) {
        if (prepared != null) {
            releaseAll(prepared.receives);
            connecting.remove(prepared.qp.qpNum());
            prepared.qp.close();
        }
    }

    private QpAttributes attributes() {
        return QpAttributes.create(cq).withMaxSendWr(config.sendQueueDepth()).withMaxRecvWr(config.recvQueueDepth())
                .withMaxSendSge(PayloadGather.MAX_SGE).withMaxRecvSge(1);
    }

    private ConnectionParameters parameters() {
        return new ConnectionParameters(config.recvQueueDepth(), config.eagerSize());
    }

    private static void releaseAll(ByteBuf[] bufs) {
        if (bufs != null) {
            for (ByteBuf b : bufs) if (b != null) b.release();
        }
    }

    private void register(Engine e) {
        byQpn.put(e.qpNum(), e);
        engines.add(e);
        metrics.engineAdded();
        connecting.remove(e.qpNum());
        List<WorkCompletion> kept = early.remove(e.qpNum());
        if (kept != null) {
            for (WorkCompletion wc : kept) e.onCompletion(wc);
        }
    }

    /** The engine failed or closed (I/O thread). */
    void removed(Engine e, Throwable cause) {
        if (byQpn.remove(e.qpNum()) != null) {
            engines.remove(e);
            metrics.engineRemoved();
        }
        clientEngines.values().removeIf(f -> f.isDone() && !f.isCompletedExceptionally() && f.join() == e);
    }

    // ------------------------------------------------------------------ the loop

    private void loop() {
        while (running) {
            try {
                boolean busy = turn();
                if (busy) {
                    idleTurns = 0;
                } else {
                    idle();
                }
            } catch (Throwable t) {
                System.err.println("reactor-rdma: thread domain " + name + " caught " + t);
                t.printStackTrace();
            }
        }
        for (Engine e : new ArrayList<>(engines)) {
            e.close();
        }
        terminated = true;
        runRemainingTasks();
        cq.close();
    }

    /** After the loop: tasks still handed over (releases, closes) run once each, on whoever drains. */
    private void runRemainingTasks() {
        Runnable r;
        while ((r = tasks.poll()) != null) {
            try {
                r.run();
            } catch (RuntimeException ignored) {
                // the domain is closing
            }
        }
    }

    private boolean turn() {
        int n = cq.poll(wcs, POLL_BATCH);
        dispatch(n);
        boolean busy = n > 0;
        Runnable r;
        while ((r = tasks.poll()) != null) {
            r.run();
            busy = true;
        }
        for (int i = 0; i < engines.size(); i++) {
            Engine e = engines.get(i);
            if (e.run()) {
                busy = true;
            }
            if (i < engines.size() && engines.get(i) != e) {
                i--; // the engine failed during its turn and was removed
            }
        }
        return busy;
    }

    private void dispatch(int n) {
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = wcs[i];
            Engine e = byQpn.get(wc.qpNum());
            if (e != null) {
                try {
                    e.onCompletion(wc); // catches what handling throws; this guards the rest of the batch if failing throws too
                } catch (RuntimeException | Error t) {
                    System.err.println("reactor-rdma: thread domain " + name + ": " + e + " threw " + t + " on a completion; the batch goes on");
                }
            } else if (connecting.contains(wc.qpNum())) {
                keepEarly(wc);
            }
        }
    }

    /** A completion that beat its engine's registration (rare: only right after a connection is made). */
    private void keepEarly(WorkCompletion wc) {
        List<WorkCompletion> list = early.get(wc.qpNum());
        if (list == null) {
            list = new ArrayList<>();
            early.put(wc.qpNum(), list);
        }
        list.add(WorkCompletion.copyOf(wc));
    }

    /**
     * An empty turn: spin for the strategy's turns, then block until a completion or handed-over
     * work (or half a heartbeat interval, so heartbeats stay due). BACK_OFF never yields: on an
     * oversubscribed host a yielding thread stays runnable and waits behind every other runnable
     * thread, while a blocked one is woken with the scheduler's wake-up preference.
     */
    private void idle() {
        if (idle == IdleStrategy.BUSY_SPIN) {
            Thread.onSpinWait();
        } else if (idleTurns < spinTurns) {
            idleTurns++;
            Thread.onSpinWait();
        } else {
            block(config.heartbeatInterval().toNanos() / 2);
        }
    }

    /** Arms the completion queue and waits for a completion, a wakeup, or the timeout. */
    private void block(long nanos) {
        cq.requestNotification();
        int n = cq.poll(wcs, POLL_BATCH);
        if (n > 0) {
            dispatch(n);
            idleTurns = 0;
        } else if (tasks.isEmpty()) {
            try {
                cq.awaitNotification(Math.max(1, nanos), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Stops the I/O thread; its engines close and their sockets end. */
    @Override
    public void close() {
        running = false;
        cq.wakeup();
        LockSupport.unpark(thread);
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

 /** The engines' states, for diagnostics (read from any thread; may be slightly stale). */
    public String describeEngines() {
        return new ArrayList<>(engines).toString();
    }

    @Override
    public String toString() {
        return "ThreadDomain{" + name + ", engines=" + engines.size() + ", " + idle + "}";
    }
}
