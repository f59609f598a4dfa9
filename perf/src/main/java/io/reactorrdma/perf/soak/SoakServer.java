package io.reactorrdma.perf.soak;

import io.netty.buffer.ByteBuf;
import io.reactorrdma.DisposableRdmaServer;
import io.reactorrdma.RdmaConnection;
import io.reactorrdma.RdmaResources;
import io.reactorrdma.RdmaServer;
import io.reactorrdma.memory.RegisteredByteBufAllocator;
import io.reactorrdma.perf.peer.PeerReporter;
import io.reactorrdma.perf.peer.ServerTask;
import io.reactorrdma.config.SoftConfig;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The soak's receiving end, in a forked process ({@code PeerMain soak-server}): an {@link RdmaServer}
 * on the shm fabric whose every connection announces a remote-writable slot, checks each message
 * ({@link SoakPayloads#verify}) and each direct write, answers each with a receipt, and, on its
 * third connection and a seeded share of the others, cancels its receive part-way (saying so in a
 * last receipt) and keeps the connection open. When
 * told to stop it disposes everything and reports its account ({@link PeerReporter#SOAK}).
 */
public final class SoakServer {

    /** Bytes of each connection's remote-writable slot, the largest direct write. */
    static final int SLOT_SIZE = 256 * 1024;

    private final LongAdder connections = new LongAdder();
    private final LongAdder delivered = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final LongAdder corrupt = new LongAdder();
    private final LongAdder directWriteChecks = new LongAdder();
    private final LongAdder remoteWrites = new LongAdder();
    private final LongAdder receiveCancels = new LongAdder();
    private final AtomicLong accepted = new AtomicLong();
    private final long seed;
    private final double cancelShare;

    private SoakServer(long seed, double cancelShare) {
        this.seed = seed;
        this.cancelShare = cancelShare;
    }

    /**
     * Loads what serving needs (the classes of Reactor, Netty and the engine) without opening
     * anything, so that a standby server that is told to start listens within moments.
     */
    public static void preload() {
        SoakPayloads.statusName(SoakPayloads.STATUS_OK);
        RdmaServer.create();
        RdmaResources.builder("soak-server-preload");
        Mono.empty().block();
        io.netty.buffer.Unpooled.buffer(1).release();
    }

    /** The forked peer's task: serves on {@code shmDir} until told to stop, then reports its account. */
    public static ServerTask task(Path shmDir, long seed, double cancelShare) {
        return (reporter, stop) -> {
            Set<Thread> before = SoakThreads.nonDaemon();
            SoakServer s = new SoakServer(seed, cancelShare);
            RdmaResources resources = RdmaResources.builder("soak-server").provider("shm")
                    .softConfig(SoftConfig.fromSystemProperties().withShmDirectory(shmDir)).threads(1).build();
            DisposableRdmaServer server;
            try {
                server = RdmaServer.create().host("127.0.0.1").port(0).runOn(resources).handleConnection(s::serve).bindNow();
            } catch (RuntimeException e) {
                resources.dispose();
                throw e;
            }
            reporter.report(PeerReporter.READY, Integer.toString(server.port()));
            while (!stop.getAsBoolean()) {
                Thread.sleep(50);
            }
            server.disposeNow(Duration.ofSeconds(10));
            resources.dispose();
            long live = resources.allocator().liveBuffers();
            Set<Thread> left = SoakThreads.leftSince(before, Duration.ofSeconds(5));
            reporter.report(PeerReporter.SOAK, s.account(live, left));
        };
    }

    private String account(long live, Set<Thread> left) {
        return String.format(Locale.ROOT, "connections=%d delivered=%d bytes=%d corrupt=%d directWriteChecks=%d remoteWrites=%d "
                        + "receiveCancels=%d liveBuffers=%d threadsLeft=%d%s",
                connections.sum(), delivered.sum(), bytes.sum(), corrupt.sum(), directWriteChecks.sum(), remoteWrites.sum(),
                receiveCancels.sum(), live, left.size(), left.isEmpty() ? "" : " " + SoakThreads.names(left));
    }

    private Mono<Void> serve(RdmaConnection c) {
        connections.increment();
        long index = accepted.getAndIncrement();
        SplittableRandom random = new SplittableRandom(seed + index);
        // the third connection always cancels (so that every run has one), then a seeded share of them
        long cancelAfter = index == 2 || (cancelShare > 0 && random.nextDouble() < cancelShare) ? 10 + random.nextInt(90) : -1;
        ByteBuf slot = c.allocateRemoteWritable(SLOT_SIZE);
        c.sendNow(SoakPayloads.announcement(c.alloc(), SLOT_SIZE, RegisteredByteBufAllocator.addressOf(slot),
                RegisteredByteBufAllocator.regionOf(slot).rkey()));
        c.remoteWrites().subscribe(n -> remoteWrites.increment());
        c.receive().subscribe(new Checker(c, slot, cancelAfter));
        return c.onDispose().doFinally(signal -> slot.release());
    }

    /** Checks and receipts each message of one connection; cancels after {@code cancelAfter} of them (never when negative). */
    private final class Checker extends BaseSubscriber<ByteBuf> {
        private final RdmaConnection c;
        private final ByteBuf slot;
        private final long cancelAfter;
        private long seen;

        Checker(RdmaConnection c, ByteBuf slot, long cancelAfter) {
            this.c = c;
            this.slot = slot;
            this.cancelAfter = cancelAfter;
        }

        @Override
        protected void hookOnSubscribe(Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        protected void hookOnNext(ByteBuf m) {
            long seq;
            int length = m.readableBytes();
            int status;
            try {
                if (SoakPayloads.isDirectWriteCheck(m)) {
                    seq = m.getLong(m.readerIndex());
                    length = m.getInt(m.readerIndex() + 8);
                    status = SoakPayloads.verifyDirectWrite(m, slot);
                    directWriteChecks.increment();
                } else {
                    seq = SoakPayloads.sequenceOf(m);
                    status = SoakPayloads.verify(m);
                    delivered.increment();
                    bytes.add(length);
                }
            } finally {
                m.release();
            }
            if (status != SoakPayloads.STATUS_OK) {
                corrupt.increment();
                System.err.println("[soak-server] " + c + ": message seq " + seq + " of " + length + " B: "
                        + SoakPayloads.statusName(status));
            }
            c.sendNow(SoakPayloads.receipt(c.alloc(), seq, length, status));
            if (++seen == cancelAfter) {
                cancel();
                receiveCancels.increment();
                c.sendNow(SoakPayloads.receipt(c.alloc(), seq, 0, SoakPayloads.STATUS_RECEIVE_CANCELLED));
            }
        }
    }
}
