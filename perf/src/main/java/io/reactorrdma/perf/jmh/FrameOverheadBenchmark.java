package io.reactorrdma.perf.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.reactorrdma.DisposableRdmaServer;
import io.reactorrdma.RdmaClient;
import io.reactorrdma.RdmaConnection;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.rsocket.RdmaClientTransport;
import io.reactorrdma.rsocket.RdmaServerTransport;
import io.rsocket.Closeable;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.local.LocalClientTransport;
import io.rsocket.transport.local.LocalServerTransport;
import io.rsocket.util.ByteBufPayload;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What RSocket over RDMA costs per frame, beside its two floors, all in one JVM over the soft
 * provider's loopback fabric. One operation is one closed-loop round trip of a {@link #size}-byte
 * payload, started and awaited (spinning) by the benchmark thread:
 * <ul>
 *   <li>{@code rsocket-rdma}: an RSocket request-response over {@link RdmaClientTransport} /
 *       {@link RdmaServerTransport}: two frames, each one RDMA message;</li>
 *   <li>{@code rsocket-local}: the same request-response over RSocket's Local transport: RSocket's
 *       own cost with no transport beneath (frames handed over by reference);</li>
 *   <li>{@code engine}: the same bytes as two messages through reactor-rdma's engine alone
 *       ({@link RdmaConnection#sendNow} and {@code receive()}, the server echoes each message):
 *       the verbs round trip as the library carries it, with no RSocket on top.</li>
 * </ul>
 * So {@code rsocket-rdma} minus {@code engine} minus {@code rsocket-local} is what the transport
 * adapter adds. Run with {@code -prof gc}: {@code gc.alloc.rate.norm} (bytes allocated per round
 * trip, every thread of the JVM — the I/O threads included) does not depend on the machine's load;
 * the time per operation does.
 *
 * <p>Request payloads are retained duplicates of one template (registered memory for RDMA, Netty's
 * pooled direct memory for Local), as rsocket-rr makes them; the server answers with the request's
 * own payload; each answer is checked for its size and released. One subscriber object is reused
 * for every request so that the harness adds as little allocation as it can.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", FrameOverheadBenchmark.NO_LEAK_DETECTION})
@Threads(1)
@State(Scope.Benchmark)
public class FrameOverheadBenchmark {

    /**
     * Netty's leak detector samples one allocation in 128 by default, and each sample allocates a
     * stack trace: off here, so that bytes per operation are the transport's own.
     */
    static final String NO_LEAK_DETECTION = "-Dio.netty.leakDetection.level=disabled";
    /** How long setup and teardown wait for a connection, a bind, a close. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);
    /** A round trip that takes longer than this fails the benchmark (a lost frame, a dead I/O thread). */
    static final long ROUND_TRIP_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** {@code rsocket-rdma}, {@code rsocket-local} or {@code engine} (see the class comment). */
    @Param({"rsocket-rdma", "rsocket-local", "engine"})
    public String path;

    /** Payload bytes per request (and per answer). */
    @Param({"64"})
    public int size;

    /**
     * The I/O threads' idle strategy ({@link IdleStrategy} name) on both RDMA ends; ignored by
     * {@code rsocket-local}. {@code BACK_OFF}, the library's default, by default: with
     * {@code BUSY_SPIN} two spinning I/O threads and the spinning benchmark thread need three
     * idle cores, or the round trips wait for time slices.
     */
    @Param({"BACK_OFF"})
    public String idle;

    /** The benchmark thread yields once in this many + 1 turns of its wait for an answer. */
    static final int YIELD_EVERY_MASK = 255;

    private RdmaResources clientResources;
    private RdmaResources serverResources;
    private Closeable rsocketServer;
    private DisposableRdmaServer engineServer;
    private RSocket requester;
    private RdmaConnection connection;
    private ByteBuf template;
    private final Answer answer = new Answer();
    /** Round trips in this iteration (the one benchmark thread counts them). */
    private long roundTrips;
    private long[] pathThreads;
    private long allocatedAtStart;

    @Setup(Level.Trial)
    public void setUp() {
        switch (path) {
            case "rsocket-rdma":
                startRdma();
                rsocketServer = RSocketServer.create(echoAcceptor()).payloadDecoder(PayloadDecoder.ZERO_COPY)
                        .bind(RdmaServerTransport.create(RdmaServer.create().host("127.0.0.1").port(0).runOn(serverResources)))
                        .block(TIMEOUT);
                int port = ((RdmaServerTransport.Bound) rsocketServer).address().getPort();
                requester = RSocketConnector.create().payloadDecoder(PayloadDecoder.ZERO_COPY)
                        .connect(RdmaClientTransport.create(RdmaClient.create().host("127.0.0.1").port(port).runOn(clientResources)))
                        .block(TIMEOUT);
                template = filled(clientResources.allocator().byteBufAllocator());
                break;
            case "rsocket-local":
                String name = "frame-overhead-" + System.nanoTime();
                rsocketServer = RSocketServer.create(echoAcceptor()).payloadDecoder(PayloadDecoder.ZERO_COPY)
                        .bind(LocalServerTransport.create(name)).block(TIMEOUT);
                requester = RSocketConnector.create().payloadDecoder(PayloadDecoder.ZERO_COPY)
                        .connect(LocalClientTransport.create(name)).block(TIMEOUT);
                template = filled(PooledByteBufAllocator.DEFAULT);
                break;
            case "engine":
                startRdma();
                engineServer = RdmaServer.create().host("127.0.0.1").port(0).runOn(serverResources)
                        .handleConnection(c -> {
                            c.receive().subscribe(c::sendNow); // echo: each message goes back as it came
                            return c.onDispose();
                        })
                        .bindNow(TIMEOUT);
                connection = RdmaClient.create().host("127.0.0.1").port(engineServer.address().getPort()).runOn(clientResources)
                        .connectNow(TIMEOUT);
                connection.receive().subscribe(answer::arrived);
                template = filled(clientResources.allocator().byteBufAllocator());
                break;
            default:
                throw new IllegalArgumentException("unknown path '" + path + "'; use rsocket-rdma, rsocket-local or engine");
        }
    }

    private void startRdma() {
        IdleStrategy strategy = IdleStrategy.valueOf(idle.toUpperCase(Locale.ROOT));
        serverResources = RdmaResources.builder("frame-server").provider("loopback").threads(1).idle(strategy).build();
        clientResources = RdmaResources.builder("frame-client").provider("loopback").threads(1).idle(strategy).build();
    }

    private ByteBuf filled(ByteBufAllocator alloc) {
        ByteBuf b = alloc.directBuffer(size, size);
        for (int i = 0; i < size; i++) {
            b.writeByte(i);
        }
        return b;
    }

    /** The server's responder: answers each request with its own payload. */
    private static SocketAcceptor echoAcceptor() {
        return SocketAcceptor.forRequestResponse(Mono::just);
    }

    /** Starts counting this iteration's round trips and the bytes the path's threads allocate (benchmark thread). */
    @Setup(Level.Iteration)
    public void startCounting() {
        pathThreads = PathAllocations.threadIds(Thread.currentThread(), "frame-client-io-", "frame-server-io-");
        allocatedAtStart = PathAllocations.allocated(pathThreads);
        roundTrips = 0;
    }

    /**
     * Prints the bytes the frame path's own threads (this benchmark thread and both I/O threads)
     * allocated per round trip in the iteration: unlike {@code gc.alloc.rate.norm}, it leaves out
     * what the rest of the JVM allocates meanwhile (JMH itself, the GC profiler's polling), which on
     * a loaded machine, with few round trips per second, weighs on every operation.
     */
    @TearDown(Level.Iteration)
    public void reportPathAllocations() {
        long bytes = PathAllocations.allocated(pathThreads) - allocatedAtStart;
        if (roundTrips > 0 && bytes >= 0) {
            System.out.printf(Locale.ROOT, "%n# frame-path path=%s size=%d idle=%s roundTrips=%d bytesPerRoundTrip=%.1f threads=%d%n",
                    path, size, idle, roundTrips, (double) bytes / roundTrips, pathThreads.length);
        }
    }

    /** One RSocket request-response (or one engine echo), awaited by spinning. */
    @Benchmark
    public int roundTrip() {
        roundTrips++;
        answer.reset();
        if (connection != null) {
            connection.sendNow(template.retainedDuplicate());
        } else {
            requester.requestResponse(ByteBufPayload.create(template.retainedDuplicate())).subscribe(answer);
        }
        return answer.await();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (requester != null) {
            requester.dispose();
            requester.onClose().onErrorResume(e -> Mono.empty()).block(TIMEOUT);
        }
        if (connection != null) {
            connection.dispose();
            connection.onDispose().block(TIMEOUT);
        }
        if (rsocketServer != null) {
            rsocketServer.dispose();
        }
        if (engineServer != null) {
            engineServer.disposeNow(TIMEOUT);
        }
        if (template != null) {
            template.release();
        }
        if (clientResources != null) {
            clientResources.dispose();
            serverResources.dispose();
            awaitNoLiveBuffers();
        }
    }

    /** RSocket releases what it holds as its connections close, on their threads: wait for it, boundedly, then insist. */
    private void awaitNoLiveBuffers() {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while ((clientResources.allocator().liveBuffers() != 0 || serverResources.allocator().liveBuffers() != 0)
                && System.nanoTime() < deadline) {
            Thread.yield();
        }
        long live = clientResources.allocator().liveBuffers() + serverResources.allocator().liveBuffers();
        if (live != 0) {
            throw new IllegalStateException(live + " registered buffers still live after the " + path
                    + " run: a frame or payload was not released (rerun with -Dio.netty.leakDetection.level=paranoid)");
        }
    }

    /**
     * The benchmark thread's one outstanding answer: a subscriber reused for every request (the
     * round trips are strictly one after the other) and the engine path's receive subscriber.
     */
    private final class Answer implements CoreSubscriber<Payload> {
        private volatile int bytes = -1;
        private volatile Throwable error;

        void reset() {
            bytes = -1;
        }

        /** The engine path: the echoed message (I/O thread). */
        void arrived(ByteBuf message) {
            int n = message.readableBytes();
            message.release();
            bytes = n;
        }

        @Override
        public void onSubscribe(Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(Payload p) {
            int n = p.data().readableBytes();
            p.release();
            bytes = n;
        }

        @Override
        public void onError(Throwable t) {
            error = t;
        }

        @Override
        public void onComplete() {
        }

        int await() {
            long start = System.nanoTime();
            int n;
            int spins = 0;
            while ((n = bytes) < 0) {
                Throwable t = error;
                if (t != null) {
                    throw new IllegalStateException("the " + path + " round trip failed: " + t, t);
                }
                if (System.nanoTime() - start > ROUND_TRIP_TIMEOUT_NANOS) {
                    throw new IllegalStateException("no answer on " + path + " within "
                            + TimeUnit.NANOSECONDS.toSeconds(ROUND_TRIP_TIMEOUT_NANOS) + " s");
                }
                if ((++spins & YIELD_EVERY_MASK) == 0) {
                    Thread.yield(); // on a host with fewer free cores than spinning threads, let the I/O threads run
                } else {
                    Thread.onSpinWait();
                }
            }
            if (n != size) {
                throw new IllegalStateException("the answer on " + path + " has " + n + " bytes, the request had " + size);
            }
            return n;
        }
    }
}
