package io.reactorrdma.engine;

import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.config.EngineConfig;
import io.netty.buffer.ByteBuf;
import io.reactorrdma.verbs.soft.fault.CompletionFault;
import io.reactorrdma.verbs.soft.fault.ReadCompletionFault;
import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.soft.SoftContext;
import io.reactorrdma.verbs.soft.fault.SoftFaults;
import io.reactorrdma.verbs.VerbsContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Pull rendezvous: the receiver READs large messages named by the sender out of the sender's
 * readable pool into its own local memory, delivers them in socket order, and releases the
 * sources in batched notices. Every READ post is checked against the queue pair's READ limit,
 * the engine's send window and the thread domain's pull budget; completions are deferred with
 * the soft provider's completion fault, as an RNIC's would come late.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class EnginePullRendezvousTest {

    static final Duration WAIT = Duration.ofSeconds(30);
    static final int KIB = 1024;
    static final int MIB = 1024 * 1024;
    /** Sizes from one byte over the server's eager size to the maximum message size, with odd ones between. */
    static final int[] SIZES = {8 * KIB + 1, 12_345, 64 * KIB, 64 * KIB + 1, 100_000, MIB, 3 * MIB + 7, 16 * MIB};

    /** The bounds every READ post must keep, checked as it is prepared (the engine's observer hook). */
    static final class Bounds implements Engine.ReadObserver {
        final AtomicLong posts = new AtomicLong();
        final AtomicInteger maxReadsSeen = new AtomicInteger();
        final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();

        @Override
        public void readPrepared(int readsInFlight, int maxReads, long windowInFlight, long windowBytes,
                long domainPullBytes, long domainBudget) {
            posts.incrementAndGet();
            maxReadsSeen.accumulateAndGet(readsInFlight, Math::max);
            if (readsInFlight > maxReads || maxReads > ConnectionParameters.MAX_READS_PER_QP) {
                violations.add(readsInFlight + " READs in flight, limit " + maxReads);
            }
            if (windowInFlight > windowBytes) {
                violations.add(windowInFlight + " bytes in the send window of " + windowBytes);
            }
            if (domainPullBytes > domainBudget) {
                violations.add(domainPullBytes + " bytes pulled in the domain, budget " + domainBudget);
            }
        }
    }

    final Bounds bounds = new Bounds();

    @AfterEach
    void clearObserver() {
        Engine.readObserver = null;
    }

    static EngineConfig pullConfig() {
        // no pull copies: messages outside readable memory go by WRITE rendezvous, so both kinds mix
        return EngineConfig.defaults().withPullRendezvous(true).withPullCopyLimit(0).withSendWindowBytes(512 * KIB)
                .withPullBudgetBytes(384 * KIB).withDrainTimeout(Duration.ofMillis(500));
    }

    /** A message: long CRC32 of the rest, int sequence, then bytes from a generator seeded by the sequence. */
    static ByteBuf message(ByteBuf into, int size, int seq) {
        byte[] body = new byte[size - 12];
        new Random(seq).nextBytes(body);
        CRC32 crc = new CRC32();
        crc.update(seq & 0xFF);
        crc.update(body);
        into.writeLong(crc.getValue()).writeInt(seq).writeBytes(body);
        return into;
    }

    /** What a server socket received: sequence numbers in order, each CRC-checked; errors as text. */
    static final class Checker implements EngineSocket.Inbound {
        final EngineSocket socket;
        final List<Integer> sequence = new ArrayList<>();
        final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        final AtomicInteger received = new AtomicInteger();
        final CompletableFuture<Throwable> closed = new CompletableFuture<>();

        Checker(EngineSocket socket) {
            this.socket = socket;
        }

        @Override
        public void onMessage(ByteBuf m) {
            try {
                int size = m.readableBytes();
                long crcSent = m.getLong(m.readerIndex());
                int seq = m.getInt(m.readerIndex() + 8);
                CRC32 crc = new CRC32();
                crc.update(seq & 0xFF);
                crc.update(m.nioBuffer(m.readerIndex() + 12, size - 12));
                if (crc.getValue() != crcSent) {
                    errors.add("message " + seq + " of " + size + " bytes: CRC mismatch");
                }
                synchronized (sequence) {
                    sequence.add(seq);
                }
            } finally {
                m.release();
                socket.consumed(1);
                received.incrementAndGet();
            }
        }

        @Override
        public void onClose(Throwable error) {
            closed.complete(error);
        }

        List<Integer> sequence() {
            synchronized (sequence) {
                return new ArrayList<>(sequence);
            }
        }
    }

    /** A server whose acceptor attaches a {@link Checker} to every socket and hands it to the test. */
    static final class Server implements Consumer<EngineSocket> {
        final BlockingQueue<Checker> accepted = new LinkedBlockingQueue<>();

        @Override
        public void accept(EngineSocket s) {
            Checker c = new Checker(s);
            s.inbound(c);
            accepted.add(c);
        }

        Checker next() throws InterruptedException {
            Checker c = accepted.poll(30, TimeUnit.SECONDS);
            if (c == null) {
                throw new AssertionError("no socket accepted within 30 s");
            }
            return c;
        }
    }

    /** Offers, per size, a pulled message (readable memory), an eager one, and every third time a WRITE-rendezvous one (local memory). */
    static int offerMix(EngineHarness h, EngineSocket s, int firstSeq, List<Integer> expected) {
        int seq = firstSeq;
        int pulls = 0;
        for (int i = 0; i < SIZES.length; i++) {
            int size = SIZES[i];
            expected.add(seq);
            assertThat(s.offer(message(s.allocateRemoteReadable(size), size, seq++))).isTrue();
            pulls++;
            expected.add(seq);
            assertThat(s.offer(message(h.clientMemory.byteBufAllocator().directBuffer(100), 100, seq++))).isTrue();
            if (i % 3 == 0) {
                expected.add(seq);
                assertThat(s.offer(message(h.clientMemory.byteBufAllocator().directBuffer(size), size, seq++))).isTrue();
            }
        }
        return pulls;
    }

    @Test
    void crcCheckedMessagesOf8KiBTo16MiBArriveInSocketOrderOverPull() throws Exception {
        crcCheckedMixInSocketOrder(() -> SoftContext.openLoopback(SoftConfig.defaults()), bounds);
    }

    /**
     * Two sockets, each offered {@link #offerMix}: every message arrives CRC-checked in socket order, the pulled ones
     * by READ within {@code bounds}, local memory by WRITE rendezvous, and every source is released. Over the contexts
     * {@code contexts} opens (a hardware provider's tests run it too).
     */
    static void crcCheckedMixInSocketOrder(Supplier<VerbsContext> contexts, Bounds bounds) throws Exception {
        Engine.readObserver = bounds;
        Server server = new Server();
        try (EngineHarness h = new EngineHarness(contexts, pullConfig(), IdleStrategy.BLOCK, server)) {
            EngineSocket a = h.client.openSocket(h.address(), WAIT).get(30, TimeUnit.SECONDS);
            EngineSocket b = h.client.openSocket(h.address(), WAIT).get(30, TimeUnit.SECONDS);
            Checker ca = server.next();
            Checker cb = server.next();
            List<Integer> expectedA = new ArrayList<>();
            List<Integer> expectedB = new ArrayList<>();
            int pulls = offerMix(h, a, 0, expectedA) + offerMix(h, b, 1000, expectedB);

            awaitTrue(() -> ca.received.get() == expectedA.size() && cb.received.get() == expectedB.size(),
                    () -> "all messages arrive: " + ca.received + "/" + expectedA.size() + ", " + cb.received + "/" + expectedB.size()
                            + "; server " + h.server.metrics() + " " + h.server.describeEngines());
            Checker first = ca.socket.id() == a.id() ? ca : cb;
            Checker second = first == ca ? cb : ca;
            assertThat(first.errors).isEmpty();
            assertThat(second.errors).isEmpty();
            assertThat(first.sequence()).as("socket order").isEqualTo(expectedA);
            assertThat(second.sequence()).as("socket order").isEqualTo(expectedB);
            assertThat(h.server.metrics().messagesPulled()).as("messages pulled").isEqualTo(pulls);
            assertThat(h.server.metrics().rendezvousRoundTrips()).as("local memory still goes by WRITE rendezvous").isPositive();
            assertThat(bounds.posts.get()).as("READ posts checked").isGreaterThan(16 * MIB / EngineConfig.DEFAULT_FRAGMENT_SIZE);
            assertThat(bounds.violations).isEmpty();
            awaitTrue(() -> h.clientMemory.readableLiveBuffers() == 0, () -> "the server's notices release every source ("
                    + h.clientMemory.readableLiveBuffers() + " live)");
            a.close();
            b.close();
            assertThat(first.closed.get(30, TimeUnit.SECONDS)).as("a graceful close").isNull();
            assertThat(second.closed.get(30, TimeUnit.SECONDS)).isNull();
        }
    }

    @Test
    void theReadLimitHoldsWhileReadAndSendCompletionsAreDeferred() throws Exception {
        ReadCompletionFault reads = new ReadCompletionFault();
        CompletionFault clientFault = new CompletionFault();
        AtomicInteger contexts = new AtomicInteger();
        Server server = new Server();
        Engine.readObserver = bounds;
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults(), contexts.getAndIncrement() == 0
                ? SoftFaults.none().withCompletionFault(clientFault) : SoftFaults.none().withReadCompletionFault(reads)),
                pullConfig(), IdleStrategy.BLOCK, server)) {
            EngineSocket a = h.client.openSocket(h.address(), WAIT).get(30, TimeUnit.SECONDS);
            Checker ca = server.next();
            reads.hold(); // the server's READs complete only at release (in strict mode a fifth outstanding READ is refused)
            clientFault.delay(a.engine.qpNum()); // the client's send completions (and the notices it receives) wait too
            List<Integer> expected = new ArrayList<>();
            expected.add(9999); // first: 16 fragments, more than the limit, in the server's first pull
            assertThat(a.offer(message(a.allocateRemoteReadable(MIB), MIB, 9999))).isTrue();
            int pulls = 1 + offerMix(h, a, 0, expected);

            awaitTrue(() -> bounds.posts.get() >= ConnectionParameters.MAX_READS_PER_QP, () -> bounds.posts + " READs posted");
            hop(h.server); // turns of the server's engine after the limit was reached: none may post another READ
            hop(h.server);
            assertThat(bounds.posts.get()).as("READs posted while none completed").isEqualTo(ConnectionParameters.MAX_READS_PER_QP);
            assertThat(bounds.maxReadsSeen.get()).isEqualTo(ConnectionParameters.MAX_READS_PER_QP);
            assertThat(h.clientMemory.readableLiveBuffers()).as("sources stay while nothing is released").isEqualTo(pulls);

            // the client's own completions come later still: its WRITE-rendezvous message waits for the answer it holds back
            reads.release();
            clientFault.deliver();
            awaitTrue(() -> ca.received.get() == expected.size(), () -> "all messages arrive: " + ca.received + "/" + expected.size()
                    + "; server " + h.server.metrics());
            assertThat(ca.errors).isEmpty();
            assertThat(ca.sequence()).isEqualTo(expected);
            awaitTrue(() -> h.clientMemory.readableLiveBuffers() == 0, () -> h.clientMemory.readableLiveBuffers() + " sources live");
            assertThat(bounds.violations).isEmpty();
            a.close();
        }
    }

    @Test
    void thePullBudgetOfAThreadDomainBoundsItsReads() throws Exception {
        ReadCompletionFault reads = new ReadCompletionFault();
        AtomicInteger contexts = new AtomicInteger();
        Server server = new Server();
        Engine.readObserver = bounds;
        EngineConfig config = pullConfig().withPullBudgetBytes(2 * EngineConfig.DEFAULT_FRAGMENT_SIZE);
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults(),
                contexts.getAndIncrement() == 0 ? SoftFaults.none()
                : SoftFaults.none().withReadCompletionFault(reads)), config, IdleStrategy.BLOCK, server)) {
            EngineSocket a = h.client.openSocket(h.address(), WAIT).get(30, TimeUnit.SECONDS);
            Checker ca = server.next();
            reads.hold();
            assertThat(a.offer(message(a.allocateRemoteReadable(MIB), MIB, 1))).isTrue();
            awaitTrue(() -> bounds.posts.get() >= 2, () -> bounds.posts + " READs posted");
            hop(h.server);
            hop(h.server);
            assertThat(bounds.posts.get()).as("READs within a budget of two fragments").isEqualTo(2);
            reads.release();
            awaitTrue(() -> ca.received.get() == 1, () -> "the message arrives; server " + h.server.metrics());
            assertThat(ca.errors).isEmpty();
            assertThat(bounds.violations).isEmpty();
            awaitTrue(() -> h.clientMemory.readableLiveBuffers() == 0, () -> h.clientMemory.readableLiveBuffers() + " sources live");
            a.close();
        }
    }

    @Test
    void theReceiverAbandonsPullsWhenItsSocketEnds() throws Exception {
        ReadCompletionFault reads = new ReadCompletionFault();
        AtomicInteger contexts = new AtomicInteger();
        Server server = new Server();
        Engine.readObserver = bounds;
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults(),
                contexts.getAndIncrement() == 0 ? SoftFaults.none()
                : SoftFaults.none().withReadCompletionFault(reads)), pullConfig(), IdleStrategy.BLOCK, server)) {
            EngineSocket a = h.client.openSocket(h.address(), WAIT).get(30, TimeUnit.SECONDS);
            EngineTest.Collector clientIn = new EngineTest.Collector();
            a.inbound(clientIn);
            Checker ca = server.next();
            reads.hold();
            for (int i = 0; i < 3; i++) {
                assertThat(a.offer(message(a.allocateRemoteReadable(2 * MIB), 2 * MIB, i))).isTrue();
            }
            awaitTrue(() -> bounds.posts.get() >= ConnectionParameters.MAX_READS_PER_QP, () -> bounds.posts + " READs posted");
            h.server.execute(() -> ca.socket.engine.closeSocket(ca.socket, null, true)); // the receiver's socket ends, READs in flight
            assertThat(ca.closed.get(30, TimeUnit.SECONDS)).isNull();
            reads.release();
            awaitTrue(() -> h.clientMemory.readableLiveBuffers() == 0, () -> "the receiver releases the sources it abandoned ("
                    + h.clientMemory.readableLiveBuffers() + " live)");
            assertThat(ca.received.get()).as("nothing delivered to an ended socket").isZero();
            assertThat(h.server.metrics().messagesPulled()).isZero();
            // the 2 MiB destination is freed: what stays live is at most the receive ring (how many receives are
            // posted again at this moment depends on the credit batches)
            awaitTrue(() -> h.serverMemory.local().statistics().liveBytes() < 2 * MIB, () -> "the server's destinations are freed ("
                    + h.serverMemory.local().statistics() + ")");
            // the connection goes on: a new socket pulls
            EngineSocket b = h.client.openSocket(h.address(), WAIT).get(30, TimeUnit.SECONDS);
            Checker cb = server.next();
            assertThat(b.offer(message(b.allocateRemoteReadable(MIB), MIB, 7))).isTrue();
            awaitTrue(() -> cb.received.get() == 1, () -> "a message on a new socket");
            assertThat(cb.errors).isEmpty();
            assertThat(bounds.violations).isEmpty();
            b.close();
        }
    }

    @Test
    void theSenderAbandonsPullsByClosingItsSocketWithAnError() throws Exception {
        ReadCompletionFault reads = new ReadCompletionFault();
        AtomicInteger contexts = new AtomicInteger();
        Server server = new Server();
        Engine.readObserver = bounds;
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults(),
                contexts.getAndIncrement() == 0 ? SoftFaults.none()
                : SoftFaults.none().withReadCompletionFault(reads)), pullConfig(), IdleStrategy.BLOCK, server)) {
            EngineSocket a = h.client.openSocket(h.address(), WAIT).get(30, TimeUnit.SECONDS);
            Checker ca = server.next();
            reads.hold(); // the server's READs stay in flight until released
            assertThat(a.offer(message(a.allocateRemoteReadable(4 * MIB), 4 * MIB, 1))).isTrue();
            awaitTrue(() -> bounds.posts.get() >= ConnectionParameters.MAX_READS_PER_QP, () -> bounds.posts + " READs posted");
            // the sender gives its socket up with an error (as a throwing application callback does): SOCKET_CLOSE 1
            h.client.execute(() -> a.engine.closeSocket(a, new EngineException("test: the sender's application failed"), true));
            assertThat(ca.closed.get(30, TimeUnit.SECONDS)).as("the server's socket ends with the sender's error").isNotNull();
            assertThat(h.clientMemory.readableLiveBuffers()).as("the source stays: the server may still be reading it").isEqualTo(1);
            reads.release();
            awaitTrue(() -> h.clientMemory.readableLiveBuffers() == 0, () -> "the source is released at the receiver's notice ("
                    + h.clientMemory.readableLiveBuffers() + " live)");
            assertThat(ca.received.get()).isZero();
            assertThat(h.server.metrics().engines()).as("the engine survives").isEqualTo(1);
            assertThat(bounds.violations).isEmpty();
        }
    }

    @Test
    void teardownWithSourcesExposedReleasesEverything() throws Exception {
        ReadCompletionFault reads = new ReadCompletionFault();
        AtomicInteger contexts = new AtomicInteger();
        Server server = new Server();
        Engine.readObserver = bounds;
        EngineHarness h =
                new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults(), contexts.getAndIncrement() == 0 ? SoftFaults.none()
                : SoftFaults.none().withReadCompletionFault(reads)), pullConfig(), IdleStrategy.BLOCK, server);
        try {
            EngineSocket a = h.client.openSocket(h.address(), WAIT).get(30, TimeUnit.SECONDS);
            Checker ca = server.next();
            reads.hold(); // READs stay in flight: the sources stay exposed
            for (int i = 0; i < 4; i++) {
                assertThat(a.offer(message(a.allocateRemoteReadable(MIB), MIB, i))).isTrue();
            }
            awaitTrue(() -> bounds.posts.get() >= ConnectionParameters.MAX_READS_PER_QP, () -> bounds.posts + " READs posted");
            assertThat(h.clientMemory.readableLiveBuffers()).isEqualTo(4);
        } finally {
            h.close(); // both domains close with READs in flight and sources exposed; asserts 0 live buffers on both sides
        }
        assertThat(h.clientMemory.liveBuffers()).isZero();
        assertThat(h.serverMemory.liveBuffers()).isZero();
    }

    @Test
    void largeMessagesOutsideReadableMemoryAreCopiedThereUpToTheCopyLimitAndGoByWriteRendezvousAbove() throws Exception {
        // pull on (the default) with a 1 MiB copy limit. Registered local memory (the connection's allocator),
        // a composite of registered pieces, and memory outside registration, each below and above the limit.
        Server server = new Server();
        int limit = MIB;
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults()),
                EngineConfig.defaults().withPullCopyLimit(limit), IdleStrategy.BLOCK, server)) {
            EngineSocket a = h.client.openSocket(h.address(), WAIT).get(30, TimeUnit.SECONDS);
            Checker ca = server.next();
            List<Integer> expected = new ArrayList<>();
            int seq = 0;
            int[] belowLimit = {64 * KIB + 1, 300 * KIB, limit};
            for (int size : belowLimit) {
                expected.add(seq);
                assertThat(a.offer(message(h.clientMemory.byteBufAllocator().directBuffer(size), size, seq++))).isTrue();
                ByteBuf whole = message(h.clientMemory.byteBufAllocator().directBuffer(size), size, seq);
                ByteBuf composite = h.clientMemory.byteBufAllocator().compositeDirectBuffer(2)
                        .addComponent(true, whole.readRetainedSlice(size / 3)).addComponent(true, whole.readRetainedSlice(size - size / 3));
                whole.release();
                expected.add(seq++);
                assertThat(a.offer(composite)).isTrue();
            }
            expected.add(seq);
            assertThat(a.offer(message(io.netty.buffer.Unpooled.directBuffer(200 * KIB), 200 * KIB, seq++))).isTrue();
            expected.add(seq);
            assertThat(a.offer(message(h.clientMemory.byteBufAllocator().directBuffer(limit + 1), limit + 1, seq++))).isTrue();

            awaitTrue(() -> ca.received.get() == expected.size(), () -> "all messages arrive: " + ca.received + "/" + expected.size());
            assertThat(ca.errors).isEmpty();
            assertThat(ca.sequence()).as("socket order").isEqualTo(expected);
            EngineMetrics client = h.client.metrics();
            assertThat(h.server.metrics().messagesPulled()).as("pulled: all but the one over the limit").isEqualTo(expected.size() - 1);
            assertThat(client.pullCopies()).as("registered payloads copied into readable memory").isEqualTo(2L * belowLimit.length);
            assertThat(client.copiesOnSend()).as("the payload outside registered memory: copied once, counted as such").isEqualTo(1);
            assertThat(h.server.metrics().rendezvousRoundTrips()).as("over the copy limit: WRITE rendezvous").isEqualTo(1);
            awaitTrue(() -> h.clientMemory.readableLiveBuffers() == 0, () -> "sources released after the notices: "
                    + h.clientMemory.readableLiveBuffers() + " live");
            a.close();
        }
    }

    @Test
    void withoutTheOfferOnBothSidesLargeMessagesGoByWriteRendezvous() throws Exception {
        Server server = new Server();
        // the client offers pull (the default), the server does not
        try (EngineHarness h = new EngineHarness(() -> SoftContext.openLoopback(SoftConfig.defaults()), EngineConfig.defaults(),
                EngineConfig.defaults().withPullRendezvous(false), IdleStrategy.BLOCK, server)) {
            EngineSocket a = h.client.openSocket(h.address(), WAIT).get(30, TimeUnit.SECONDS);
            Checker ca = server.next();
            assertThat(a.remoteReadableAllocator()).isNull();
            assertThatThrownBy(() -> a.allocateRemoteReadable(MIB)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("withPullRendezvous");
            assertThat(a.offer(message(h.clientMemory.byteBufAllocator().directBuffer(MIB), MIB, 1))).isTrue();
            awaitTrue(() -> ca.received.get() == 1, () -> "the message arrives");
            assertThat(ca.errors).isEmpty();
            assertThat(h.server.metrics().messagesPulled()).isZero();
            assertThat(h.server.metrics().rendezvousRoundTrips()).isEqualTo(1);
            a.close();
        }
    }

    /** The server's live buffers of an idle engine: its receive buffers and header area. */
    private static long baseline(EngineHarness h) {
        EngineConfig c = pullConfig();
        return c.recvQueueDepth() + 1;
    }

    /** Returns after the domain's I/O thread ran a task handed to it now (after its current turn). */
    private static void hop(ThreadDomain d) throws InterruptedException {
        CountDownLatch hop = new CountDownLatch(1);
        d.execute(hop::countDown);
        assertThat(hop.await(30, TimeUnit.SECONDS)).isTrue();
    }

    static void awaitTrue(BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + WAIT.toSeconds() + " s: " + what.get());
            }
            Thread.sleep(5);
        }
    }
}
