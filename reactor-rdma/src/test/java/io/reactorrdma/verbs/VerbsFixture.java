package io.reactorrdma.verbs;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import io.reactorrdma.verbs.work.RecvWr;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two connected queue pairs on two contexts ("a" is the client, "b" the server), each with its own
 * completion queue, protection domain and a registered region; plus helpers that poll with
 * generous timeouts.
 */
public final class VerbsFixture implements AutoCloseable {

    public static final Duration TIMEOUT = Duration.ofSeconds(20);
    public static final int REGION_SIZE = 1 << 20;

    public final VerbsContext ctxA;
    public final VerbsContext ctxB;
    public final ProtectionDomain pdA;
    public final ProtectionDomain pdB;
    public final CompletionQueue cqA;
    public final CompletionQueue cqB;
    public final QueuePair qpA;
    public final QueuePair qpB;
    public final MemoryRegion mrA;
    public final MemoryRegion mrB;
    public final InetSocketAddress listenAt;
    public CmConnection connA;
    public CmConnection connB;
    public ByteBuffer acceptPrivateDataSeenByA;
    public ByteBuffer connectPrivateDataSeenByB;
    private final List<AutoCloseable> extra = new ArrayList<>();
    private final WorkCompletion[] wcs = newCompletions(64);

    public VerbsFixture(VerbsContext a, VerbsContext b, Function<CompletionQueue, QpAttributes> attributes) {
        this(a, b, attributes, attributes, true);
    }

    public VerbsFixture(VerbsContext a, VerbsContext b, Function<CompletionQueue, QpAttributes> attributesA,
                        Function<CompletionQueue, QpAttributes> attributesB, boolean connect) {
        this(a, b, attributesA, attributesB, connect, new InetSocketAddress("127.0.0.1", 0));
    }

    /** As above, with b's listener on {@code listenAt} (hardware providers need the address of an RDMA interface). */
    public VerbsFixture(VerbsContext a, VerbsContext b, Function<CompletionQueue, QpAttributes> attributesA,
                        Function<CompletionQueue, QpAttributes> attributesB, boolean connect, InetSocketAddress listenAt) {
        this.listenAt = listenAt;
        this.ctxA = a;
        this.ctxB = b;
        pdA = a.allocPd();
        pdB = b.allocPd();
        cqA = a.createCq(1024);
        cqB = b.createCq(1024);
        qpA = a.createQp(pdA, attributesA.apply(cqA));
        qpB = b.createQp(pdB, attributesB.apply(cqB));
        mrA = pdA.allocate(REGION_SIZE, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
        mrB = pdB.allocate(REGION_SIZE, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
        if (connect) {
            connect(bytes(56, 1), bytes(196, 2));
        }
    }

    public static VerbsFixture connected(VerbsContext a, VerbsContext b) {
        return new VerbsFixture(a, b, QpAttributes::create);
    }

    /** Connects qpA to qpB through a listener on b, exchanging the private data given. */
    public void connect(ByteBuffer connectData, ByteBuffer acceptData) {
        try (CmListener listener = ctxB.listen(listenAt, 4)) {
            CompletableFuture<CmConnection> server = CompletableFuture.supplyAsync(() -> {
                try {
                    ConnectionRequest req = listener.poll(TIMEOUT);
                    assertThat(req).as("connection request").isNotNull();
                    connectPrivateDataSeenByB = req.privateData();
                    return req.accept(qpB, acceptData);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            connA = ctxA.connect(listener.localAddress(), qpA, connectData, TIMEOUT);
            connB = server.join();
            acceptPrivateDataSeenByA = connA.remotePrivateData();
        }
    }

    public static ByteBuffer bytes(int n, int seed) {
        ByteBuffer b = ByteBuffer.allocate(n);
        for (int i = 0; i < n; i++) {
            b.put(i, (byte) (seed * 31 + i));
        }
        return b;
    }

    public static WorkCompletion[] newCompletions(int n) {
        WorkCompletion[] w = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            w[i] = new WorkCompletion();
        }
        return w;
    }

    public static void fill(MemoryRegion mr, int offset, int length, int seed) {
        ByteBuffer b = mr.buffer();
        for (int i = 0; i < length; i++) {
            b.put(offset + i, (byte) (seed + i * 7));
        }
    }

    public static void assertFilled(MemoryRegion mr, int offset, int length, int seed) {
        ByteBuffer b = mr.buffer();
        for (int i = 0; i < length; i++) {
            if (b.get(offset + i) != (byte) (seed + i * 7)) {
                throw new AssertionError("byte " + i + " of " + length + " at offset " + offset + " differs: "
                        + b.get(offset + i) + " != " + (byte) (seed + i * 7));
            }
        }
    }

    public void postRecv(QueuePair qp, MemoryRegion mr, long wrId, int offset, int length) {
        RecvWr wr = new RecvWr().wrId(wrId);
        wr.setSge(mr, offset, length);
        qp.postRecv(new RecvWr[]{wr}, 0, 1);
    }

    public static SendWr send(long wrId, MemoryRegion mr, int offset, int length) {
        SendWr wr = new SendWr().wrId(wrId).opcode(WrOpcode.SEND);
        wr.setSge(mr, offset, length);
        return wr;
    }

    public static SendWr rdma(WrOpcode op, long wrId, MemoryRegion local, int offset, int length, long remoteAddress, int rkey) {
        SendWr wr = new SendWr().wrId(wrId).opcode(op).remote(remoteAddress, rkey);
        wr.setSge(local, offset, length);
        return wr;
    }

    public static void post(QueuePair qp, SendWr... wrs) {
        qp.postSend(wrs, 0, wrs.length);
    }

    /** Polls until {@code n} completions arrived (fails after the timeout); returns copies. */
    public List<WorkCompletion> await(CompletionQueue cq, int n) {
        List<WorkCompletion> got = new ArrayList<>();
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (got.size() < n) {
            int k = cq.poll(wcs, Math.min(wcs.length, n - got.size()));
            for (int i = 0; i < k; i++) {
                got.add(copy(wcs[i]));
            }
            if (k == 0) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("expected " + n + " completions, got " + got.size() + ": " + got);
                }
                Thread.onSpinWait();
                Thread.yield();
            }
        }
        return got;
    }

    public WorkCompletion awaitOne(CompletionQueue cq) {
        return await(cq, 1).get(0);
    }

    /** Polls for {@code millis} and returns whatever came (to show that nothing comes). */
    public List<WorkCompletion> drainFor(CompletionQueue cq, long millis) {
        List<WorkCompletion> got = new ArrayList<>();
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < end) {
            int k = cq.poll(wcs, wcs.length);
            for (int i = 0; i < k; i++) {
                got.add(copy(wcs[i]));
            }
            Thread.yield();
        }
        return got;
    }

    public static WorkCompletion copy(WorkCompletion w) {
        return WorkCompletion.copyOf(w);
    }

    public <T extends AutoCloseable> T track(T c) {
        extra.add(c);
        return c;
    }

    @Override
    public void close() {
        for (AutoCloseable c : extra) {
            try {
                c.close();
            } catch (Exception ignored) {
                // best effort
            }
        }
        ctxA.close();
        ctxB.close();
    }
}
