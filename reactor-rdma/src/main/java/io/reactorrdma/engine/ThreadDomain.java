package io.reactorrdma.engine;

import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.EngineConfig;
import io.netty.buffer.ByteBuf;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.internal.PlatformDependent;
import io.reactorrdma.memory.RegisteredAllocator;
import io.reactorrdma.verbs.CmConnection;
import io.reactorrdma.verbs.CompletionQueue;
import io.reactorrdma.verbs.ConnectionRejectedException;
import io.reactorrdma.verbs.ConnectionRequest;
import io.reactorrdma.verbs.ProtectionDomain;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.QueuePair;
import io.reactorrdma.verbs.VerbsContext;
import io.reactorrdma.verbs.work.WorkCompletion;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * A thread domain: one I/O thread with its own completion queue and the engines it drives
 * (docs/ARCHITECTURE.md, "Threads"). Other threads hand work over through {@link #execute}; the I/O thread polls
 * the completion queue, runs handed-over tasks, and gives each engine a scheduling turn. Sockets
 * to the same destination opened in one domain share one engine (QP multiplexing, paper §6.1).
 */
public final class ThreadDomain implements AutoCloseable {

    private static final int POLL_BATCH = 64;
    /** Empty loop turns {@link IdleStrategy#BACK_OFF} spins before it blocks while spinning pays: some tens of microseconds. */
    private static final int BACK_OFF_SPIN_TURNS = 1000;
    /** Empty loop turns {@link IdleStrategy#BLOCK} spins before it blocks: just enough to skip arming for a near-miss. */
    private static final int BLOCK_SPIN_TURNS = 50;
    private static final Logger LOG = Loggers.getLogger(ThreadDomain.class);

    private final String name;
    private final VerbsContext context;
    private final ProtectionDomain pd;
    private final RegisteredAllocator memory;
    private final EngineConfig config;
    /** How long an idle wait lasts at most: half a heartbeat interval, so heartbeats stay due. */
    private final long halfHeartbeatNanos;
    private final IdleStrategy idle;
    private final CompletionQueue cq;
    private final EngineMetrics metrics = new EngineMetrics();
    /** Bytes of RDMA READs this domain's engines have outstanding (I/O thread), within EngineConfig.pullBudgetBytes. */
    private long pullBytesInFlight;
    private final Executor connector;
    private final Thread thread;
    /**
     * Work handed to the I/O thread. Many producers, one consumer at a time: the I/O thread while its loop runs, then
     * whoever runs {@link #runRemainingTasks}. Netty's MPSC linked-array queue, as for the sockets' send queues: a
     * chunk per 1,024 offers instead of a node per offer (the I/O thread gives itself a grant task every half socket
     * window).
     */
    private final Queue<Runnable> tasks = PlatformDependent.newMpscQueue();
    /** Runs of {@link #runRemainingTasks} asked for and not done: the one that took it from 0 drains for all. */
    private final AtomicInteger remainingTaskRuns = new AtomicInteger();
    private final IntObjectHashMap<Engine> byQpn = new IntObjectHashMap<>();
    private final List<Engine> engines = new ArrayList<>();
    /** Engines registered so far (I/O thread; tests read it). */
    private long registered;
    /** Failed engines waiting for their queue pairs to be quiet (still in byQpn, for their flush completions). */
    private final List<Engine> draining = new ArrayList<>();
    private final Map<InetSocketAddress, CompletableFuture<Engine>> clientEngines = new ConcurrentHashMap<>();
    /**
     * Queue pairs connected but whose engine the I/O thread has not registered yet: the peer may
     * send at once, so their completions are kept and replayed at registration.
     */
    private final java.util.Set<Integer> connecting = ConcurrentHashMap.newKeySet();
    /**
     * Queue pairs being connected whose number is not known yet (a DiSNI QP gets it during
     * connect/accept): while there are any, a completion of an unknown number may be theirs and
     * is kept too.
     */
    private final AtomicInteger unnumbered = new AtomicInteger();
    private final IntObjectHashMap<List<WorkCompletion>> early = new IntObjectHashMap<>();
    /** Engines this domain drives or is connecting; at most {@link #maxEngines} (its completion queue is sized for them). */
    private final AtomicInteger engineSlots = new AtomicInteger();
    private final int maxEngines;
    private final WorkCompletion[] wcs = new WorkCompletion[POLL_BATCH];
    private volatile boolean running = true;
    private int idleTurns;
    /** Empty turns spent spinning before the thread blocks (BACK_OFF: chosen per idle episode, BLOCK; BUSY_SPIN never blocks). */
    private int spinTurns;
    /** BACK_OFF's choice of a full or a short spin per idle episode; null for the other strategies. */
    private final SpinBudget spinBudget;
    /** Idle turns between two reads of the clock while spinning ({@link #turnNanos()}). */
    static final int CLOCK_IDLE_TURNS = 32;
    /** The clock of the current turn (I/O thread). */
    private long turnNanos = System.nanoTime();
    /** Whether the next turn must read the clock: the last one was busy, or the thread waited. */
    private boolean clockStale = true;
    private int turnsSinceClock;

    /** Whether a full BACK_OFF spin is being measured, and when it began (System.nanoTime()). */
    private boolean spinMeasured;
    private long spinStart;
    /**
     * The engine that posted last (I/O thread; of several that post in one turn, the last in the domain's order):
     * an answer on its queue pair is the next step of a conversation this thread is part of, which
     * {@link SpinBudget} counts as worth a longer spin than other work.
     */
    private Engine lastPoster;
    /**
     * Whether the turns since a measured spin began found the next step of a conversation: a completion of
     * {@link #lastPoster}'s queue pair (its answers, and its own send completions), a task another thread handed
     * over, or a socket made ready to send (by the application on its own thread, or on this one in answer to
     * what the spin found: a server's reply to a request from any client).
     */
    private boolean conversation;
    /**
     * Set by a thread other than the I/O thread when it hands a task over (before adding it), cleared by the I/O
     * thread when it runs tasks: tasks the I/O thread gives itself (grants, early flushes) are no conversation.
     * A hand-over racing with the clear may be judged as other work, once.
     */
    private volatile boolean tasksFromOtherThreads;
    /** Set when the loop has ended: later {@link #execute} calls run their task on the caller. */
    private volatile boolean terminated;
    /** Completes when the loop has ended, its engines closed and its completion queue with them. */
    private final CompletableFuture<Void> termination = new CompletableFuture<>();
    /** The engine protocol version this domain speaks at connect; only tests set another. */
    private volatile short protocolVersion = ConnectionParameters.VERSION;

    public ThreadDomain(String name, VerbsContext context, RegisteredAllocator memory, EngineConfig config,
                        IdleStrategy idle, int maxEngines, Executor connector) {
        this.name = name;
        this.context = context;
        this.pd = memory.protectionDomain();
        this.memory = memory;
        this.config = config;
        this.halfHeartbeatNanos = config.heartbeatInterval().toNanos() / 2;
        this.idle = idle;
        this.spinTurns = idle == IdleStrategy.BACK_OFF ? BACK_OFF_SPIN_TURNS : BLOCK_SPIN_TURNS;
        this.spinBudget = idle == IdleStrategy.BACK_OFF ? new SpinBudget() : null;
        this.connector = connector;
        this.maxEngines = maxEngines;
        // every send- and receive-queue slot of every engine may hold a completion (an RNIC overruns otherwise)
        this.cq = context.createCq(maxEngines * (config.sendQueueDepth() + config.recvQueueDepth()));
        for (int i = 0; i < POLL_BATCH; i++) {
            wcs[i] = new WorkCompletion();
        }
        this.thread = new Thread(this::loop, name);
        thread.setDaemon(true);
        thread.start();
    }

    public String name() {
        return name;
    }

    /**
     * Takes {@code bytes} of the domain's pull budget for a READ (I/O thread): false when the
     * engines of this domain have EngineConfig.pullBudgetBytes in flight already (one READ larger
     * than the rest of the budget waits until it is all back).
     */
    boolean takePullBudget(int bytes) {
        if (pullBytesInFlight + bytes > config.pullBudgetBytes()) {
            return false;
        }
        pullBytesInFlight += bytes;
        return true;
    }

    /** A READ retired: its bytes are back in the domain's pull budget (I/O thread). */
    void returnPullBudget(int bytes) {
        pullBytesInFlight -= bytes;
    }

    /** Bytes of READs in flight in this domain (I/O thread; for the checks of tests). */
    long pullBytesInFlight() {
        return pullBytesInFlight;
    }

    public EngineMetrics metrics() {
        return metrics;
    }

    RegisteredAllocator memory() {
        return memory;
    }

    /** Runs {@code task} on the I/O thread. */
    public void execute(Runnable task) {
        boolean fromOtherThread = !inDomain();
        if (fromOtherThread) {
            tasksFromOtherThreads = true;
        }
        tasks.add(task);
        if (terminated) {
            runRemainingTasks(); // the I/O thread is gone: what is handed over now is cleanup, run it here
        } else if (fromOtherThread) {
            wakeIdle();
        }
    }

    /** Wakes the I/O thread if it is idle (called from any thread; the I/O thread itself is awake). */
    void wakeup() {
        if (!inDomain()) {
            wakeIdle();
        }
    }

    /** Wakes the I/O thread, which may be blocked (a thread other than it). */
    private void wakeIdle() {
        if (idle != IdleStrategy.BUSY_SPIN) {
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
                prepared = prepareQp(true);
                var conn = connectQp(address, prepared, timeout);
                ConnectionParameters peer;
                try {
                    peer = ConnectionParameters.decode(conn.remotePrivateData(), "peer " + address, protocolVersion);
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

    /** Connects a prepared queue pair; a refusal's error says the server's reason when it gave one. */
    private CmConnection connectQp(InetSocketAddress address, PreparedQp prepared, Duration timeout) {
        CmConnection conn;
        try {
            conn = context.connect(address, prepared.qp, parameters(true).encode(), timeout);
        } catch (ConnectionRejectedException e) {
            String reason = RejectReason.decode(e.privateData());
            if (reason == null) {
                // no reason in text: a refusal of our parameters or version (ConnectionParameters.refusal), or none at all
                throw new EngineException(ConnectionParameters.describeRefusal(e.privateData(), "the server at " + address,
                        protocolVersion), e);
            }
            ConnectionRejectedException told = new ConnectionRejectedException(address + " refused the connection: " + reason,
                    e.privateData());
            told.initCause(e);
            throw told;
        }
        numbered(prepared);
        return conn;
    }

    /** Whether this domain can take another engine now. */
    public boolean hasRoom() {
        return engineSlots.get() < maxEngines;
    }

    /**
     * Accepts a connection request into this domain (called by a listener thread); sockets the
     * peer opens are handed to {@code acceptor} on the I/O thread. A request this domain cannot
     * take (full, or creating its queue pair failed) is rejected with the reason, which the
     * client's error shows, and the failure is rethrown.
     */
    public void accept(ConnectionRequest request, Consumer<EngineSocket> acceptor) {
        ConnectionParameters peer;
        try {
            peer = ConnectionParameters.decode(request.privateData(), "client " + request.remoteAddress(), protocolVersion);
        } catch (ProtocolException e) {
            // The client's connect fails with the reason; the server has no caller to tell, so it logs.
            short theirs = ConnectionParameters.versionOf(request.privateData());
            request.reject(ConnectionParameters.refusal(protocolVersion,
                    theirs != 0 && theirs != protocolVersion
                            ? ConnectionParameters.REFUSED_VERSION : ConnectionParameters.REFUSED_PARAMETERS,
                    theirs));
            LOG.warn("{} refused a connection: {}", name, e.getMessage());
            return;
        }
        PreparedQp prepared;
        try {
            prepared = prepareQp(false);
        } catch (RuntimeException e) {
            rejectQuietly(request, e);
            throw e;
        }
        try {
            var conn = request.accept(prepared.qp, parameters(false).encode());
            numbered(prepared);
            Engine engine = new Engine(this, config, conn, peer, prepared.receives, false, acceptor);
            execute(() -> register(engine));
        } catch (RuntimeException e) {
            abandon(prepared);
            throw e;
        }
    }

    /** Rejects a request this domain cannot take, with the reason; a request already answered is left alone. */
    public static void rejectQuietly(ConnectionRequest request, Throwable why) {
        try {
            request.reject(RejectReason.encode(String.valueOf(why.getMessage())));
        } catch (RuntimeException alreadyAnswered) {
            // the client stopped waiting, or the accept got far enough to answer
        }
    }

    /** A queue pair on this domain's completion queue with its receives posted, about to connect. */
    private static final class PreparedQp {
        final QueuePair qp;
        final ByteBuf[] receives;
        /** The number the queue pair is kept under in {@link #connecting}; 0 while unknown. */
        int qpNum;

        PreparedQp(QueuePair qp, ByteBuf[] receives, int qpNum) {
            this.qp = qp;
            this.receives = receives;
            this.qpNum = qpNum;
        }
    }

    /**
     * Creates the queue pair and posts its receives before connecting, so the peer's first SEND finds one.
     * Takes one of the domain's engine slots; refuses with a clear error when they are all taken.
     */
    private PreparedQp prepareQp(boolean client) {
        if (engineSlots.incrementAndGet() > maxEngines) {
            engineSlots.decrementAndGet();
            throw new EngineException("thread domain " + name + " already drives " + maxEngines + " engines, its limit "
                    + "(RdmaResources.Builder.maxEnginesPerThread sizes its completion queue); raise it or add threads");
        }
        QueuePair qp;
        try {
            qp = context.createQp(pd, attributes());
        } catch (RuntimeException e) {
            engineSlots.decrementAndGet();
            throw e;
        }
        try {
            ByteBuf[] receives = Engine.postInitialReceives(qp, memory, config, client);
            int n = qp.qpNum();
            if (n != 0) {
                connecting.add(n);
            } else {
                unnumbered.incrementAndGet();
            }
            return new PreparedQp(qp, receives, n);
        } catch (RuntimeException e) {
            engineSlots.decrementAndGet();
            qp.close();
            throw e;
        }
    }

    /**
     * Connect or accept returned: the queue pair's number is known now. It joins {@link #connecting}
     * before it leaves the unnumbered count, so that the I/O thread keeps its completions throughout.
     */
    private void numbered(PreparedQp prepared) {
        if (prepared.qpNum == 0) {
            int n = prepared.qp.qpNum();
            if (n == 0) {
                throw new EngineException("the provider reports no number for queue pair " + prepared.qp + " after it connected");
            }
            connecting.add(n);
            prepared.qpNum = n;
            unnumbered.decrementAndGet();
        }
    }

    private void abandon(PreparedQp prepared) {
        if (prepared != null) {
            releaseAll(prepared.receives);
            if (prepared.qpNum != 0) {
                connecting.remove(prepared.qpNum);
            } else {
                unnumbered.decrementAndGet();
            }
            prepared.qp.close();
            engineSlots.decrementAndGet();
            execute(this::discardUnclaimed);
        }
    }

    private QpAttributes attributes() {
        return QpAttributes.create(cq).withMaxSendWr(config.sendQueueDepth()).withMaxRecvWr(config.recvQueueDepth())
                .withMaxSendSge(PayloadGather.MAX_SGE).withMaxRecvSge(1).withMaxRdAtomic(ConnectionParameters.MAX_READS_PER_QP);
    }

    private ConnectionParameters parameters(boolean client) {
        return ConnectionParameters.of(protocolVersion, config, client);
    }

    /** Test hook: speak another engine protocol version at connect and accept (a version mismatch). */
    void protocolVersion(short version) {
        this.protocolVersion = version;
    }

    private static void releaseAll(ByteBuf[] bufs) {
        if (bufs != null) {
            for (ByteBuf b : bufs) {
                if (b != null) {
                    b.release();
                }
            }
        }
    }

    private void register(Engine e) {
        registered++;
        byQpn.put(e.qpNum(), e);
        if (!e.isFailed()) {
            engines.add(e);
            metrics.engineAdded();
            if (!running || terminated) {
                // connected while the domain closes: its loop has closed its engines already (or is about to, and
                // this one's close comes first), and only drains the closed ones now, or no loop is left at all
                e.close();
            }
        } else {
            // it failed first (its peer left before this ran) and is already draining: removed() found it
            // in no list, so the slot prepareQp took comes back here
            engineSlots.decrementAndGet();
        }
        connecting.remove(e.qpNum());
        List<WorkCompletion> kept = early.remove(e.qpNum());
        if (kept != null) {
            for (WorkCompletion wc : kept) {
                e.onCompletion(wc);
            }
        }
        discardUnclaimed();
    }

    /**
     * Kept completions no connecting queue pair can claim any more (I/O thread): those of a queue
     * pair abandoned before its engine existed, or flushes of an engine already removed. Their
     * buffers were released with their queue pair, so they are only forgotten.
     */
    private void discardUnclaimed() {
        if (early.isEmpty() || unnumbered.get() > 0) {
            return;
        }
        early.keySet().removeIf(qpn -> !connecting.contains(qpn));
    }

    /**
     * The engine failed or closed (I/O thread): it takes no more work, and drains — it keeps
     * receiving its queue pair's completions — until {@link #drained}.
     */
    void removed(Engine e, Throwable cause) {
        if (engines.remove(e)) {
            metrics.engineRemoved();
            engineSlots.decrementAndGet();
        }
        if (lastPoster == e) {
            lastPoster = null;
        }
        draining.add(e);
        clientEngines.values().removeIf(f -> f.isDone() && !f.isCompletedExceptionally() && f.join() == e);
    }

    /** The failed engine's queue pair is quiet and destroyed, its memory released (I/O thread). */
    void drained(Engine e) {
        draining.remove(e);
        if (byQpn.get(e.qpNum()) == e) {
            byQpn.remove(e.qpNum());
        }
    }

    /** Whether the loop has ended: no completion will be polled any more. */
    boolean isTerminated() {
        return terminated;
    }

    /** Failed engines still waiting for their queue pairs to be quiet (I/O thread). */
    int drainingEngines() {
        return draining.size();
    }

    /** Tests: engines driven, not failed (I/O thread, or once the loop has ended). */
    int engineCount() {
        return engines.size();
    }

    /** Tests: engines registered so far, failed or not (I/O thread, or once the loop has ended). */
    long registeredEngines() {
        return registered;
    }

    // ------------------------------------------------------------------ the loop

    private void loop() {
        while (running) {
            try {
                boolean busy = turn();
                if (busy) {
                    if (spinMeasured) {
                        spinFound();
                    }
                    idleTurns = 0;
                } else {
                    idle();
                }
            } catch (Throwable t) {
                LOG.error("thread domain " + name + " caught " + t + "; its loop goes on", t);
            }
        }
        for (Engine e : new ArrayList<>(engines)) {
            e.close();
        }
        // Closed engines release their memory once their queue pairs are quiet (or their drain timeout passes).
        while (!draining.isEmpty()) {
            try {
                if (!turn()) {
                    block(1_000_000L);
                }
            } catch (Throwable t) {
                LOG.error("thread domain " + name + " caught " + t + " while its engines drained", t);
            }
        }
        terminated = true;
        runRemainingTasks();
        try {
            cq.close();
        } finally {
            termination.complete(null);
        }
    }

    /**
     * After the loop: tasks still handed over (releases, closes) run once each. One thread drains at a time (the
     * queue has one consumer): a caller that finds another draining leaves its task to it, which loops until no run
     * is owed.
     */
    private void runRemainingTasks() {
        if (remainingTaskRuns.getAndIncrement() != 0) {
            return;
        }
        int owed = 1;
        do {
            Runnable r;
            while ((r = tasks.poll()) != null) {
                try {
                    r.run();
                } catch (RuntimeException ignored) {
                    // the domain is closing
                }
            }
            owed = remainingTaskRuns.addAndGet(-owed);
        } while (owed != 0);
    }

    private boolean turn() {
        if (clockStale || ++turnsSinceClock >= CLOCK_IDLE_TURNS) {
            turnNanos = System.nanoTime();
            turnsSinceClock = 0;
        }
        int n = cq.poll(wcs, POLL_BATCH);
        dispatch(n);
        boolean busy = n > 0;
        Runnable r;
        boolean ranTasks = false;
        while ((r = tasks.poll()) != null) {
            r.run();
            ranTasks = true;
        }
        if (ranTasks) {
            busy = true;
            if (tasksFromOtherThreads) {
                tasksFromOtherThreads = false;
                conversation = true; // another thread handed work over: it waits for this one
            }
        }
        for (int i = 0; i < engines.size(); i++) {
            Engine e = engines.get(i);
            if (e.run()) {
                busy = true;
                if (!e.isFailed()) {
                    lastPoster = e; // a failed engine was removed, and it drains: its flushes answer nobody
                }
            }
            if (e.tookHandedOverSockets()) {
                conversation = true;
            }
            if (i < engines.size() && engines.get(i) != e) {
                i--; // the engine failed during its turn and was removed
            }
        }
        if (!draining.isEmpty()) {
            long now = System.nanoTime();
            for (int i = draining.size() - 1; i >= 0; i--) {
                if (i < draining.size()) {
                    draining.get(i).checkDrainDeadline(now);
                }
            }
        }
        clockStale = busy;
        return busy;
    }

    /**
     * {@code System.nanoTime()} as of this turn, for what engines time by the heartbeat interval (heartbeats, pool
     * trims) (I/O thread). Read at the start of a turn after a busy one or a wait, and once every
     * {@value #CLOCK_IDLE_TURNS} turns of an idle spin: a clock read costs about as much as an empty turn of the
     * loop (some 30 ns here), and a spinning thread would otherwise spend a third of its turns reading it.
     */
    long turnNanos() {
        return turnNanos;
    }

    private void dispatch(int n) {
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = wcs[i];
            Engine e = byQpn.get(wc.qpNum());
            if (e != null) {
                if (e == lastPoster) {
                    conversation = true;
                }
                try {
                    e.onCompletion(wc); // catches what handling throws; this guards the rest of the batch if failing throws too
                } catch (RuntimeException | Error t) {
                    LOG.error("thread domain " + name + ": " + e + " threw " + t + " on a completion; the batch goes on", t);
                }
            } else if (connecting.contains(wc.qpNum()) || unnumbered.get() > 0) {
                keepEarly(wc); // its engine is about to be registered (or may be: a number not known yet)
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
     * work (or half a heartbeat interval, so heartbeats stay due). BACK_OFF chooses at the first empty
     * turn of each idle episode between its full spin and BLOCK's short one ({@link SpinBudget}); the
     * clock is read at a full spin's start and end only (here and in {@link #spinFound}).
     * BACK_OFF never yields: on an oversubscribed host a yielding thread stays runnable and waits behind every other runnable
     * thread, while a blocked one is woken with the scheduler's wake-up preference.
     */
    private void idle() {
        if (idle == IdleStrategy.BUSY_SPIN) {
            Thread.onSpinWait();
            return;
        }
        if (idleTurns == 0 && spinBudget != null) {
            // BACK_OFF, a new idle episode: the full spin while spinning pays (and for a probe), else BLOCK's
            if (spinBudget.spinInFull()) {
                spinTurns = BACK_OFF_SPIN_TURNS;
                spinMeasured = true;
                spinStart = System.nanoTime();
                conversation = false;
                metrics.idleSpin();
                SpinHook hook = spinHook;
                if (hook != null) {
                    hook.spinStarted();
                }
            } else {
                spinTurns = BLOCK_SPIN_TURNS;
                metrics.idleSpinSkipped();
            }
        }
        if (idleTurns < spinTurns) {
            idleTurns++;
            Thread.onSpinWait();
        } else {
            if (spinMeasured) {
                spinMeasured = false; // a full BACK_OFF spin ran out
                spinBudget.ranOut();
            }
            block(halfHeartbeatNanos);
        }
    }

    /** A full BACK_OFF spin found work (the time includes the turn that found it). */
    private void spinFound() {
        long nanos = System.nanoTime() - spinStart;
        spinMeasured = false;
        if (spinBudget.found(nanos, conversation)) {
            metrics.idleSpinPaid();
        }
        SpinHook hook = spinHook;
        if (hook != null) {
            hook.spinFound(conversation);
        }
    }

    /**
     * Arms the completion queue and waits for a completion, a wakeup, or the timeout. The arm is
     * for solicited completions only (a peer's data, answers, socket openings and closings, and
     * errors) unless an engine waits on something an unsolicited completion brings: then for every one.
     */
    private void block(long nanos) {
        clockStale = true;
        boolean solicitedOnly = solicitedOnly();
        cq.requestNotification(solicitedOnly);
        int n = cq.poll(wcs, POLL_BATCH);
        if (n > 0) {
            dispatch(n);
            idleTurns = 0;
        } else if (tasks.isEmpty()) {
            metrics.idleWait();
            BlockHook hook = blockHook;
            if (hook != null) {
                hook.aboutToWait(solicitedOnly);
            }
            try {
                cq.awaitNotification(Math.max(1, nanos), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Tests: told on the I/O thread each time it is about to wait, armed, with nothing polled. */
    interface BlockHook {
        void aboutToWait(boolean solicitedOnly);
    }

    /** Tests only: the racing point between an armed I/O thread and a completion that should wake it. */
    volatile BlockHook blockHook;

    /** Tests: told on the I/O thread when a full BACK_OFF spin starts, and how the one that found work was judged. */
    interface SpinHook {
        void spinStarted();

        void spinFound(boolean conversation);
    }

    /** Tests only: holds a full spin at its start, so that what it will find can be put in place first. */
    volatile SpinHook spinHook;

    /** Whether no engine needs an unsolicited completion to make progress (I/O thread, when about to block). */
    private boolean solicitedOnly() {
        if (!draining.isEmpty() || !running) {
            return false;
        }
        for (int i = 0; i < engines.size(); i++) {
            if (engines.get(i).waitsOnSendResource()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Tells the I/O thread to stop without waiting: it finishes its turn, closes its engines (their
     * sockets end) and its completion queue. Any thread, the I/O thread itself included.
     *
     * @return completes when the I/O thread has ended
     */
    public CompletableFuture<Void> closeAsync() {
        running = false;
        if (!inDomain()) {
            cq.wakeup();
            LockSupport.unpark(thread);
        }
        return termination;
    }

    /**
     * Stops the I/O thread and waits until it has ended (at most the drain timeout + 10 s: failed
     * engines finish draining first); on the I/O thread itself it
     * only tells it to stop, as {@link #closeAsync()} does (a thread cannot wait for itself).
     */
    @Override
    public void close() {
        CompletableFuture<Void> ended = closeAsync();
        if (inDomain()) {
            return;
        }
        try {
            ended.get(config.drainTimeout().toMillis() + 10_000, TimeUnit.MILLISECONDS); // closing engines drain first
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // still busy (a task that blocks the I/O thread): it ends when the task returns
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
