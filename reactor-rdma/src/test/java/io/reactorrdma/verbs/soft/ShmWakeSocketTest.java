package io.reactorrdma.verbs.soft;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.CompletionQueue;
import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.VerbsFixture;
import io.reactorrdma.verbs.work.WcOpcode;
import io.reactorrdma.verbs.work.WcStatus;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.soft.shared.WakeSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static io.reactorrdma.verbs.VerbsFixture.post;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shm fabric's wake-ups: a blocked poller waits in its completion queue's {@link WakeSocket}
 * and a peer's byte there wakes it, with no provider thread in between; without a wake socket the
 * control socket and the provider thread still carry them. Both sides block the way a thread
 * domain does (arm, poll, wait), so a lost wake-up shows as a wait that ran out.
 */
class ShmWakeSocketTest {

    /** A wait this long without a completion can only be a lost wake-up (a delivered one takes microseconds). */
    static final long WAIT_MILLIS = 5_000;
    static final int ROUND_TRIPS = 2_000;

    private Path dir;
    private VerbsFixture fixture;
    private SoftContext a;
    private SoftContext b;

    @AfterEach
    void cleanup() throws IOException {
        if (fixture != null) {
            fixture.close();
        }
        ShmTestSupport.deleteTree(dir);
    }

    private VerbsFixture open(Path directory) {
        dir = directory;
        SoftConfig config = SoftConfig.defaults().withShmDirectory(dir);
        a = SoftContext.openShm(config);
        b = SoftContext.openShm(config);
        fixture = new VerbsFixture(a, b, cq -> QpAttributes.create(cq).withMaxSendWr(32).withMaxRecvWr(4)
                .withRnrRetry(QpAttributes.RNR_RETRY_INFINITE));
        return fixture;
    }

    private static Path shortDirectory() {
        return Paths.get("/dev/shm", "reactor-rdma-wake-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
    }

    @Test
    void aBlockedPollerIsWokenByThePeersByteOnItsWakeSocketAndNoWakeUpIsLost() throws Exception {
        VerbsFixture f = open(shortDirectory());
        assertThat(Files.exists(dir.resolve(a.id() + "." + WakeSocket.fileName(((SoftCompletionQueue) f.cqA).number))))
                .as("the completion queue's wake socket").isTrue();
        int[] lost = pingPong(f, ROUND_TRIPS);
        assertThat(lost).as("waits that ran out (lost wake-ups), client and echoer").containsExactly(0, 0);
        assertThat(((SoftCompletionQueue) f.cqA).socketWakeups()).as("client waits ended by the echoer's byte").isPositive();
        assertThat(((SoftCompletionQueue) f.cqB).socketWakeups()).as("echoer waits ended by the client's byte").isPositive();
        assertThat(relayed(a) + relayed(b)).as("wake-ups relayed by a provider thread").isZero();
    }

    /**
     * A wait ended by the peer's byte uses the arm up, as an RNIC's event does: the poller's own send
     * completion afterwards leaves no event behind, so its next wait (armed again, nothing arriving)
     * really waits. Before, it returned at once — a second "wake-up" per message that was none.
     */
    @Test
    void aWaitEndedByThePeersByteUsesTheArmUpSoThePollersOwnSendsDoNotEndItsNextWait() throws Exception {
        VerbsFixture f = open(shortDirectory());
        f.postRecv(f.qpA, f.mrA, 1, 4096, 64);
        f.postRecv(f.qpB, f.mrB, 1, 4096, 64);
        WorkCompletion[] wcs = VerbsFixture.newCompletions(8);
        f.cqA.requestNotification();
        assertThat(f.cqA.poll(wcs, wcs.length)).as("completions before the peer sends").isZero();
        post(f.qpB, VerbsFixture.send(1, f.mrB, 0, 8).signaled(true)); // finds A armed: a byte on A's wake socket
        assertThat(f.cqA.awaitNotification(WAIT_MILLIS, TimeUnit.MILLISECONDS)).as("the wait the peer's byte ends").isTrue();
        assertThat(((SoftCompletionQueue) f.cqA).socketWakeups()).as("waits ended by the peer's byte").isEqualTo(1);
        assertThat(f.cqA.poll(wcs, wcs.length)).as("the peer's message").isEqualTo(1);
        assertThat(wcs[0].opcode()).isEqualTo(WcOpcode.RECV);
        post(f.qpA, VerbsFixture.send(2, f.mrA, 0, 8).signaled(true)); // the poller's own send completes at once
        assertThat(f.cqA.poll(wcs, wcs.length)).as("the poller's own send completion").isEqualTo(1);
        assertThat(wcs[0].opcode()).isEqualTo(WcOpcode.SEND);
        f.cqA.requestNotification();
        assertThat(f.cqA.poll(wcs, wcs.length)).as("completions after the arm").isZero();
        // nothing arrives, so the wait must run out; a stale event would end it at once
        assertThat(f.cqA.awaitNotification(300, TimeUnit.MILLISECONDS)).as("a wait with nothing arriving").isFalse();
        assertThat(f.cqB.poll(wcs, wcs.length)).as("the peer's send completion and our message").isEqualTo(2);
    }

    @Test
    void withoutAWakeSocketTheProviderThreadRelaysWakeUpsAndNoneIsLost() throws Exception {
        // A directory path short enough for the listener's socket (port-NNNNN.sock) but too long for a
        // wake socket (<pid>-<8 hex>.cq<n>.wake): UNIX socket addresses hold at most 107 bytes.
        String prefix = "/dev/shm/reactor-rdma-wake-" + ProcessHandle.current().pid() + "-";
        Path longDir = Paths.get(prefix + "x".repeat(88 - prefix.length()));
        VerbsFixture f = open(longDir);
        assertThat(((SoftCompletionQueue) f.cqA).hasWakeSocket()).as("no wake socket fits this path").isFalse();
        int[] lost = pingPong(f, 300);
        assertThat(lost).as("waits that ran out (lost wake-ups), client and echoer").containsExactly(0, 0);
        assertThat(relayed(a)).as("wake-ups of the client relayed by its provider thread").isPositive();
        assertThat(relayed(b)).as("wake-ups of the echoer relayed by its provider thread").isPositive();
    }

    @Test
    void wakeSocketsGoWithTheirQueuesAndContexts() throws Exception {
        VerbsFixture f = open(shortDirectory());
        pingPong(f, 10);
        fixture = null;
        f.close();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".wake"))).as("wake sockets left").isEmpty();
        }
    }

    @Test
    void aBlockingRoundTripAllocatesNothing() throws Exception {
        VerbsFixture f = open(shortDirectory());
        int rounds = 4_000;
        f.postRecv(f.qpA, f.mrA, 1, 4096, 64);
        f.postRecv(f.qpB, f.mrB, 1, 4096, 64);
        CompletableFuture<Void> echoer = CompletableFuture.runAsync(() -> {
            WorkCompletion[] wcs = VerbsFixture.newCompletions(8);
            AtomicInteger lost = new AtomicInteger();
            for (int i = 0; i < 2 * rounds; i++) {
                awaitRecv(f.cqB, wcs, lost);
                f.postRecv(f.qpB, f.mrB, 1, 4096, 64);
                post(f.qpB, message(f.mrB, i));
            }
        });
        // the client's side is what a blocking I/O thread does per message: post, poll, arm, poll, wait
        SendWr[] plain = {message(f.mrA, 0)};
        SendWr[] signaled = {message(f.mrA, 15)};
        io.reactorrdma.verbs.work.RecvWr[] recv = {new io.reactorrdma.verbs.work.RecvWr().wrId(1)};
        recv[0].setSge(f.mrA, 4096, 64);
        WorkCompletion[] wcs = VerbsFixture.newCompletions(8);
        AtomicInteger lost = new AtomicInteger();
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        long before = 0;
        for (int i = 0; i < 2 * rounds; i++) {
            if (i == rounds) {
                before = threads.getThreadAllocatedBytes(tid);
            }
            f.qpA.postSend(i % 16 == 15 ? signaled : plain, 0, 1);
            awaitRecv(f.cqA, wcs, lost);
            f.qpA.postRecv(recv, 0, 1);
        }
        long allocated = threads.getThreadAllocatedBytes(tid) - before;
        echoer.get(60, TimeUnit.SECONDS);
        assertThat(((SoftCompletionQueue) f.cqA).socketWakeups()).as("waits ended by the echoer's byte").isPositive();
        assertThat(allocated).as("bytes allocated by %d blocking round trips", rounds).isLessThan(16 * 1024);
    }

    /**
     * Peers come and go while the queue's poller never blocks (a spinning or always-busy thread
     * domain): the connections of peers that closed are still closed (a long-lived server would
     * otherwise keep a descriptor per connection it ever had).
     */
    @Test
    void connectionsOfPeersThatLeftAreClosedWhileThePollerNeverBlocks() throws Exception {
        dir = shortDirectory();
        SoftConfig config = SoftConfig.defaults().withShmDirectory(dir);
        a = SoftContext.openShm(config);
        b = SoftContext.openShm(config);
        try {
            io.reactorrdma.verbs.ProtectionDomain pdA = a.allocPd();
            io.reactorrdma.verbs.ProtectionDomain pdB = b.allocPd();
            CompletionQueue cqA = a.createCq(256);
            CompletionQueue cqB = b.createCq(256);
            int peers = 20;
            try (io.reactorrdma.verbs.CmListener listener = a.listen(new java.net.InetSocketAddress("127.0.0.1", 0), 4)) {
                for (int i = 0; i < peers; i++) {
                    io.reactorrdma.verbs.QueuePair qa = a.createQp(pdA, QpAttributes.create(cqA));
                    io.reactorrdma.verbs.QueuePair qb = b.createQp(pdB, QpAttributes.create(cqB));
                    CompletableFuture<io.reactorrdma.verbs.CmConnection> accepted = CompletableFuture.supplyAsync(() -> {
                        try {
                            return listener.poll(VerbsFixture.TIMEOUT).accept(qa, null);
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    });
                    b.connect(listener.localAddress(), qb, null, VerbsFixture.TIMEOUT);
                    accepted.get(60, TimeUnit.SECONDS);
                    qb.close(); // b's link to qa closes its connection to cqA's wake socket
                    qa.close();
                }
            }
            SoftCompletionQueue queue = (SoftCompletionQueue) cqA;
            WorkCompletion[] wcs = VerbsFixture.newCompletions(8);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            int seen = queue.wakeConnections();
            while (System.nanoTime() < deadline && (seen = queue.wakeConnections()) > 0) {
                for (int i = 0; i < 100_000; i++) {
                    cqA.poll(wcs, wcs.length); // as a spinning thread domain does, never arming or waiting
                }
            }
            assertThat(seen).as("open connections of %d peers that closed, after 30 s of polling", peers).isZero();
        } finally {
            a.close();
            b.close();
        }
    }

    private static long relayed(SoftContext c) {
        return ((ShmFabric) c.fabric).relayedWakeups();
    }

    /**
     * Closed-loop ping-pong with both sides blocking between messages; returns how many waits of
     * the client and of the echoer (a thread of its own) ran out with nothing to poll.
     */
    private static int[] pingPong(VerbsFixture f, int roundTrips) throws Exception {
        AtomicInteger echoerLost = new AtomicInteger();
        f.postRecv(f.qpA, f.mrA, 1, 4096, 64);
        f.postRecv(f.qpB, f.mrB, 1, 4096, 64);
        CompletableFuture<Void> echoer = CompletableFuture.runAsync(() -> {
            WorkCompletion[] wcs = VerbsFixture.newCompletions(8);
            for (int i = 0; i < roundTrips; i++) {
                awaitRecv(f.cqB, wcs, echoerLost);
                f.postRecv(f.qpB, f.mrB, 1, 4096, 64);
                post(f.qpB, message(f.mrB, i));
            }
        });
        AtomicInteger clientLost = new AtomicInteger();
        WorkCompletion[] wcs = VerbsFixture.newCompletions(8);
        for (int i = 0; i < roundTrips; i++) {
            post(f.qpA, message(f.mrA, i));
            awaitRecv(f.cqA, wcs, clientLost);
            f.postRecv(f.qpA, f.mrA, 1, 4096, 64);
        }
        echoer.get(60, TimeUnit.SECONDS);
        return new int[]{clientLost.get(), echoerLost.get()};
    }

    /** One in 16 sends is signaled: it retires the unsignaled ones before it (send queue depth 32). */
    private static SendWr message(io.reactorrdma.verbs.MemoryRegion mr, int i) {
        return VerbsFixture.send(i, mr, 0, 8).signaled(i % 16 == 15);
    }

    /** Waits as a thread domain does — poll, arm, poll, block — until a receive completes. */
    private static void awaitRecv(CompletionQueue cq, WorkCompletion[] wcs, AtomicInteger lost) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (pollRecv(cq, wcs)) {
                return;
            }
            cq.requestNotification();
            if (pollRecv(cq, wcs)) {
                return;
            }
            try {
                if (!cq.awaitNotification(WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                    lost.incrementAndGet(); // the echo comes within microseconds: the wait was never ended
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
        throw new AssertionError("no receive completion within 60 s");
    }

    private static boolean pollRecv(CompletionQueue cq, WorkCompletion[] wcs) {
        int n = cq.poll(wcs, wcs.length);
        boolean got = false;
        for (int i = 0; i < n; i++) {
            if (wcs[i].status() != WcStatus.SUCCESS) {
                throw new AssertionError("completion failed: " + wcs[i]); // not assertThat: it allocates on every call
            }
            got |= wcs[i].opcode() == WcOpcode.RECV;
        }
        return got;
    }
}
