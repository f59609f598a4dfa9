package io.reactorrdma.verbs;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import io.reactorrdma.verbs.work.RecvWr;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.work.WcOpcode;
import io.reactorrdma.verbs.work.WcStatus;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;

import static io.reactorrdma.verbs.VerbsFixture.assertFilled;
import static io.reactorrdma.verbs.VerbsFixture.bytes;
import static io.reactorrdma.verbs.VerbsFixture.fill;
import static io.reactorrdma.verbs.VerbsFixture.post;
import static io.reactorrdma.verbs.VerbsFixture.rdma;
import static io.reactorrdma.verbs.VerbsFixture.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The semantics every verbs provider must honour (docs/VERBS.md), one test per rule. A
 * subclass per provider/fabric supplies contexts and a way to make a peer vanish. Timeouts are
 * generous: CI is a busy 2-core machine; nothing here asserts on speed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class VerbsConformanceSuite {

    private VerbsFixture fixture;

    /** A fresh context; peers of one test are two of these. */
    protected abstract VerbsContext openContext();

    /** Makes the context disappear as a killed process would: no disconnect, no cleanup. */
    protected abstract void vanish(VerbsContext context);

    /** How long a survivor may take to notice a vanished peer (the provider's configured bound, plus slack). */
    protected abstract Duration peerDeathBound();

    /**
     * Why this provider cannot show the vanished-peer rules (RETRY_EXC_ERR within a bound), or null
     * when it can; the two dead-peer tests are then skipped with this reason.
     */
    protected String vanishedPeerRulesDifferBecause() {
        return null;
    }

    private void assumeVanishedPeerRules() {
        String why = vanishedPeerRulesDifferBecause();
        org.junit.jupiter.api.Assumptions.assumeTrue(why == null, why);
    }

    /**
     * Wake-ups the posts of {@code qp} have sent its peer's completion queue so far, or -1 where
     * the provider cannot count them (hardware: the NIC raises events); the doorbell rules are then
     * skipped.
     */
    protected long peerWakeupsSentBy(QueuePair qp) {
        return -1;
    }

    private long wakeupsOf(QueuePair qp) {
        long n = peerWakeupsSentBy(qp);
        org.junit.jupiter.api.Assumptions.assumeTrue(n >= 0, "this provider does not count the wake-ups it sends");
        return n;
    }

    /** Where listeners of this suite bind: loopback for the soft providers; hardware needs an RDMA interface's address. */
    protected InetSocketAddress listenAddress() {
        return new InetSocketAddress("127.0.0.1", 0);
    }

    protected VerbsFixture pair() {
        return pair(QpAttributes::create);
    }

    protected VerbsFixture pair(java.util.function.Function<CompletionQueue, QpAttributes> attributes) {
        fixture = new VerbsFixture(openContext(), openContext(), attributes, attributes, true, listenAddress());
        return fixture;
    }

    /** Two contexts with queue pairs, not connected. */
    protected VerbsFixture unconnected() {
        fixture = new VerbsFixture(openContext(), openContext(), QpAttributes::create, QpAttributes::create, false, listenAddress());
        return fixture;
    }

    @AfterEach
    void closeFixture() {
        if (fixture != null) {
            fixture.close();
        }
    }

    // ------------------------------------------------------------------ connection management

    @Test
    void connectExchangesPrivateDataOfCmSizes() {
        VerbsFixture f = pair();
        assertThat(f.connectPrivateDataSeenByB).isEqualTo(bytes(56, 1));
        assertThat(f.acceptPrivateDataSeenByA).isEqualTo(bytes(196, 2));
        assertThat(f.qpA.state()).isEqualTo(QpState.RTS);
        assertThat(f.qpB.state()).isEqualTo(QpState.RTS);
        assertThat(f.connA.isConnected()).isTrue();
    }

    @Test
    void connectPrivateDataAboveTheCmLimitIsRefused() {
        VerbsFixture f = unconnected();
        assertThatThrownBy(() -> f.ctxA.connect(new InetSocketAddress("127.0.0.1", 1), f.qpA,
                ByteBuffer.allocate(57), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("56");
    }

    @Test
    void rejectCarriesPrivateDataToTheClient() throws Exception {
        VerbsFixture f = unconnected();
        try (CmListener listener = f.ctxB.listen(listenAddress(), 2)) {
            CompletableFuture<Void> server = CompletableFuture.runAsync(() -> {
                try {
                    listener.poll(VerbsFixture.TIMEOUT).reject(bytes(20, 9));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThatThrownBy(() -> f.ctxA.connect(listener.localAddress(), f.qpA, bytes(8, 3), VerbsFixture.TIMEOUT))
                    .isInstanceOfSatisfying(ConnectionRejectedException.class,
                            e -> assertThat(e.privateData()).isEqualTo(bytes(20, 9)));
            server.get(20, TimeUnit.SECONDS);
        }
        assertThat(f.qpA.state()).isEqualTo(QpState.INIT);
    }

    @Test
    void connectingWhereNobodyListensIsAClearError() {
        VerbsFixture f = unconnected();
        int port;
        try (CmListener l = f.ctxB.listen(listenAddress(), 1)) {
            port = l.localAddress().getPort();
        }
        assertThatThrownBy(() -> f.ctxA.connect(new InetSocketAddress(listenAddress().getAddress(), port), f.qpA,
                null, Duration.ofSeconds(5)))
                .isInstanceOf(VerbsException.class).hasMessageContaining("nothing listens");
    }

    @Test
    void postingSendsBeforeConnectingIsRefused() {
        VerbsFixture f = unconnected();
        assertThatThrownBy(() -> post(f.qpA, send(1, f.mrA, 0, 8))).isInstanceOf(VerbsException.class)
                .hasMessageContaining("not connected");
    }

    @Test
    void disconnectFlushesBothSidesAndSignalsBoth() throws Exception {
        VerbsFixture f = pair();
        f.postRecv(f.qpA, f.mrA, 11, 0, 64);
        f.postRecv(f.qpB, f.mrB, 21, 0, 64);
        f.connA.disconnect();
        assertThat(f.connA.onDisconnect().get(20, TimeUnit.SECONDS)).isNotNull();
        assertThat(f.connB.onDisconnect().get(20, TimeUnit.SECONDS)).contains("disconnected");
        WorkCompletion a = f.awaitOne(f.cqA);
        WorkCompletion b = f.awaitOne(f.cqB);
        assertThat(a.status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(a.wrId()).isEqualTo(11);
        assertThat(b.status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(b.wrId()).isEqualTo(21);
        assertThat(f.qpA.state()).isEqualTo(QpState.ERROR);
        assertThat(f.qpB.state()).isEqualTo(QpState.ERROR);
        post(f.qpA, send(5, f.mrA, 0, 8));
        assertThat(f.awaitOne(f.cqA).status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
    }

    // ------------------------------------------------------------------ SEND / RECV

    @Test
    void sendConsumesReceivesInOrderAndDeliversTheBytes() {
        VerbsFixture f = pair();
        int n = 20;
        for (int i = 0; i < n; i++) {
            f.postRecv(f.qpB, f.mrB, 100 + i, i * 4096, 4096);
        }
        SendWr[] batch = new SendWr[n];
        for (int i = 0; i < n; i++) {
            fill(f.mrA, i * 4096, i * 100 + 1, i);
            batch[i] = send(i, f.mrA, i * 4096, i * 100 + 1);
        }
        f.qpA.postSend(batch, 0, n);
        List<WorkCompletion> recvs = f.await(f.cqB, n);
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = recvs.get(i);
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.opcode()).isEqualTo(WcOpcode.RECV);
            assertThat(wc.wrId()).isEqualTo(100 + i);
            assertThat(wc.byteLen()).isEqualTo(i * 100 + 1);
            assertThat(wc.qpNum()).isEqualTo(f.qpB.qpNum());
            assertThat(wc.hasImm()).isFalse();
            assertFilled(f.mrB, i * 4096, i * 100 + 1, i);
        }
        List<WorkCompletion> sends = f.await(f.cqA, n);
        for (int i = 0; i < n; i++) {
            assertThat(sends.get(i).wrId()).isEqualTo(i);
            assertThat(sends.get(i).opcode()).isEqualTo(WcOpcode.SEND);
            assertThat(sends.get(i).isSuccess()).isTrue();
        }
    }

    @Test
    void sendWithImmediateDeliversIt() {
        VerbsFixture f = pair();
        f.postRecv(f.qpB, f.mrB, 7, 0, 128);
        fill(f.mrA, 0, 100, 3);
        SendWr wr = send(1, f.mrA, 0, 100).opcode(WrOpcode.SEND_WITH_IMM).immData(0xCAFEBABE);
        post(f.qpA, wr);
        WorkCompletion wc = f.awaitOne(f.cqB);
        assertThat(wc.isSuccess()).isTrue();
        assertThat(wc.hasImm()).isTrue();
        assertThat(wc.immData()).isEqualTo(0xCAFEBABE);
        assertThat(wc.byteLen()).isEqualTo(100);
        assertFilled(f.mrB, 0, 100, 3);
    }

    @Test
    void zeroByteSendConsumesAReceive() {
        VerbsFixture f = pair();
        f.postRecv(f.qpB, f.mrB, 9, 0, 16);
        SendWr wr = new SendWr().wrId(1).opcode(WrOpcode.SEND);
        post(f.qpA, wr);
        WorkCompletion wc = f.awaitOne(f.cqB);
        assertThat(wc.isSuccess()).isTrue();
        assertThat(wc.byteLen()).isZero();
    }

    @Test
    void scatterGatherListsAreGatheredAndScattered() {
        VerbsFixture f = pair(cq -> QpAttributes.create(cq).withMaxSendSge(3).withMaxRecvSge(2));
        RecvWr recv = new RecvWr(2).wrId(5);
        recv.addSge(f.mrB.address() + 1000, 50, f.mrB.lkey());
        recv.addSge(f.mrB.address() + 5000, 100, f.mrB.lkey());
        f.qpB.postRecv(new RecvWr[]{recv}, 0, 1);
        ByteBuffer a = f.mrA.buffer();
        for (int i = 0; i < 120; i++) {
            a.put(i < 40 ? 10 + i : i < 80 ? 300 + i - 40 : 600 + i - 80, (byte) i);
        }
        SendWr wr = new SendWr(3).wrId(1).opcode(WrOpcode.SEND);
        wr.addSge(f.mrA.address() + 10, 40, f.mrA.lkey());
        wr.addSge(f.mrA.address() + 300, 40, f.mrA.lkey());
        wr.addSge(f.mrA.address() + 600, 40, f.mrA.lkey());
        post(f.qpA, wr);
        WorkCompletion wc = f.awaitOne(f.cqB);
        assertThat(wc.byteLen()).isEqualTo(120);
        ByteBuffer b = f.mrB.buffer();
        for (int i = 0; i < 120; i++) {
            assertThat(b.get(i < 50 ? 1000 + i : 5000 + i - 50)).as("byte %d", i).isEqualTo((byte) i);
        }
    }

    /**
     * Sizes around 96 bytes, where the soft provider stops carrying a SEND in the receive slot
     * itself: every size lands in the posted scatter list the same way, byte for byte, and leaves
     * the bytes after it alone; the immediate comes with it.
     */
    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {1, 39, 40, 41, 64, 95, 96, 97, 160})
    void smallAndLargeSendsAreScatteredAlike(int size) {
        VerbsFixture f = pair(cq -> QpAttributes.create(cq).withMaxSendSge(2).withMaxRecvSge(2));
        ByteBuffer b = f.mrB.buffer();
        for (int i = 0; i < 2048; i++) {
            b.put(1000 + i, (byte) 0x5A);
        }
        RecvWr recv = new RecvWr(2).wrId(3);
        recv.addSge(f.mrB.address() + 1000, 40, f.mrB.lkey());
        recv.addSge(f.mrB.address() + 2000, 200, f.mrB.lkey());
        f.qpB.postRecv(new RecvWr[]{recv}, 0, 1);
        ByteBuffer a = f.mrA.buffer();
        for (int i = 0; i < size; i++) {
            a.put(i < 7 ? 8 + i : 500 + i - 7, (byte) (i * 7 + 1)); // gathered from two entries: 7 bytes, then the rest
        }
        SendWr wr = new SendWr(2).wrId(4).opcode(WrOpcode.SEND_WITH_IMM).immData(size);
        wr.addSge(f.mrA.address() + 8, Math.min(7, size), f.mrA.lkey());
        if (size > 7) {
            wr.addSge(f.mrA.address() + 500, size - 7, f.mrA.lkey());
        }
        post(f.qpA, wr);
        WorkCompletion wc = f.awaitOne(f.cqB);
        assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.wrId()).isEqualTo(3);
        assertThat(wc.byteLen()).isEqualTo(size);
        assertThat(wc.immData()).isEqualTo(size);
        for (int i = 0; i < size; i++) {
            assertThat(b.get(i < 40 ? 1000 + i : 2000 + i - 40)).as("byte %d", i).isEqualTo((byte) (i * 7 + 1));
        }
        for (int i = Math.min(size, 40); i < 40; i++) {
            assertThat(b.get(1000 + i)).as("first entry, byte %d after the message", i).isEqualTo((byte) 0x5A);
        }
        for (int i = Math.max(size - 40, 0); i < 200; i++) {
            assertThat(b.get(2000 + i)).as("second entry, byte %d after the message", i).isEqualTo((byte) 0x5A);
        }
        assertThat(f.awaitOne(f.cqA).isSuccess()).isTrue();
    }

    @Test
    void tooManyScatterGatherEntriesIsRefusedSynchronously() {
        VerbsFixture f = pair(cq -> QpAttributes.create(cq).withMaxSendSge(1));
        SendWr wr = new SendWr(2).wrId(1);
        wr.addSge(f.mrA.address(), 8, f.mrA.lkey());
        wr.addSge(f.mrA.address() + 8, 8, f.mrA.lkey());
        assertThatThrownBy(() -> post(f.qpA, wr)).isInstanceOf(VerbsException.class).hasMessageContaining("scatter/gather");
        assertThat(f.qpA.freeSendSlots()).isEqualTo(QpAttributes.DEFAULT_SEND_DEPTH);
    }

    @Test
    void sendLargerThanTheReceiveBufferFailsWithLocLenErrOnTheResponder() {
        VerbsFixture f = pair();
        f.postRecv(f.qpB, f.mrB, 1, 0, 16);
        f.postRecv(f.qpB, f.mrB, 2, 16, 16);
        post(f.qpA, send(9, f.mrA, 0, 64));
        WorkCompletion recv = f.awaitOne(f.cqB);
        assertThat(recv.status()).isEqualTo(WcStatus.LOC_LEN_ERR);
        assertThat(recv.wrId()).isEqualTo(1);
        WorkCompletion flushed = f.awaitOne(f.cqB);
        assertThat(flushed.status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(flushed.wrId()).isEqualTo(2);
        WorkCompletion sent = f.awaitOne(f.cqA);
        assertThat(sent.status()).isEqualTo(WcStatus.REM_INV_REQ_ERR);
        assertThat(sent.errorDetail()).contains("64 bytes");
        assertThat(f.qpA.state()).isEqualTo(QpState.ERROR);
        assertThat(f.qpB.state()).isEqualTo(QpState.ERROR);
    }

    // ------------------------------------------------------------------ RDMA WRITE / READ

    @Test
    void writeConsumesNoReceiveAndLandsInThePeerRegion() {
        VerbsFixture f = pair();
        f.postRecv(f.qpB, f.mrB, 77, 0, 64);
        fill(f.mrA, 0, 10_000, 5);
        post(f.qpA, rdma(WrOpcode.WRITE, 1, f.mrA, 0, 10_000, f.mrB.address() + 4096, f.mrB.rkey()));
        WorkCompletion wc = f.awaitOne(f.cqA);
        assertThat(wc.isSuccess()).isTrue();
        assertThat(wc.opcode()).isEqualTo(WcOpcode.RDMA_WRITE);
        assertFilled(f.mrB, 4096, 10_000, 5);
        assertThat(f.drainFor(f.cqB, 100)).as("a WRITE produces no completion at the responder").isEmpty();
        post(f.qpA, send(2, f.mrA, 0, 8));
        WorkCompletion recv = f.awaitOne(f.cqB);
        assertThat(recv.wrId()).as("the receive posted before the WRITE is still there").isEqualTo(77);
    }

    @Test
    void writeWithImmediateWritesThenConsumesAReceive() {
        VerbsFixture f = pair();
        f.postRecv(f.qpB, f.mrB, 33, 0, 0);
        fill(f.mrA, 0, 70_000, 8);
        post(f.qpA, rdma(WrOpcode.WRITE_WITH_IMM, 1, f.mrA, 0, 70_000, f.mrB.address() + 100, f.mrB.rkey()).immData(42));
        WorkCompletion wc = f.awaitOne(f.cqB);
        assertThat(wc.isSuccess()).isTrue();
        assertThat(wc.opcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(wc.wrId()).isEqualTo(33);
        assertThat(wc.immData()).isEqualTo(42);
        assertThat(wc.byteLen()).isEqualTo(70_000);
        assertFilled(f.mrB, 100, 70_000, 8);
    }

    @Test
    void writesAreVisibleBeforeALaterCompletionOnTheSameQueuePair() {
        VerbsFixture f = pair();
        for (int round = 0; round < 50; round++) {
            f.postRecv(f.qpB, f.mrB, round, 0, 8);
            fill(f.mrA, 8192, 64 * 1024, round);
            SendWr w1 = rdma(WrOpcode.WRITE, 1, f.mrA, 8192, 32 * 1024, f.mrB.address() + 8192, f.mrB.rkey()).signaled(false);
            SendWr w2 = rdma(WrOpcode.WRITE, 2, f.mrA, 8192 + 32 * 1024, 32 * 1024, f.mrB.address() + 8192 + 32 * 1024,
                    f.mrB.rkey()).signaled(false);
            SendWr s = send(3, f.mrA, 0, 8);
            post(f.qpA, w1, w2, s);
            WorkCompletion wc = f.awaitOne(f.cqB);
            assertThat(wc.isSuccess()).isTrue();
            assertFilled(f.mrB, 8192, 64 * 1024, round);
            assertThat(f.awaitOne(f.cqA).wrId()).isEqualTo(3);
        }
    }

    @Test
    void readFetchesPeerMemory() {
        VerbsFixture f = pair();
        fill(f.mrB, 1000, 5000, 4);
        post(f.qpA, rdma(WrOpcode.READ, 8, f.mrA, 200, 5000, f.mrB.address() + 1000, f.mrB.rkey()));
        WorkCompletion wc = f.awaitOne(f.cqA);
        assertThat(wc.isSuccess()).isTrue();
        assertThat(wc.opcode()).isEqualTo(WcOpcode.RDMA_READ);
        assertThat(wc.byteLen()).isEqualTo(5000);
        assertFilled(f.mrA, 200, 5000, 4);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"unknown rkey", "deregistered region", "out of bounds", "beyond the end", "no remote write access",
            "other protection domain"})
    void badRemoteAccessFailsWithRemAccessErr(String variant) {
        VerbsFixture f = pair();
        long addr = f.mrB.address();
        int rkey = f.mrB.rkey();
        int len = 64;
        switch (variant) {
            case "unknown rkey":
                rkey = rkey ^ 0x5A5A0000;
                break;
            case "deregistered region": {
                MemoryRegion gone = f.pdB.allocate(4096, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
                addr = gone.address();
                rkey = gone.rkey();
                gone.close();
                break;
            }
            case "out of bounds":
                addr = f.mrB.address() - 8;
                break;
            case "beyond the end":
                addr = f.mrB.address() + f.mrB.length() - 10;
                break;
            case "no remote write access": {
                MemoryRegion ro = f.pdB.allocate(4096, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
                addr = ro.address();
                rkey = ro.rkey();
                break;
            }
            default: {
                ProtectionDomain other = f.ctxB.allocPd();
                MemoryRegion foreign = other.allocate(4096, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
                addr = foreign.address();
                rkey = foreign.rkey();
            }
        }
        f.postRecv(f.qpB, f.mrB, 50, 0, 64);
        post(f.qpA, rdma(WrOpcode.WRITE, 1, f.mrA, 0, len, addr, rkey).signaled(false), send(2, f.mrA, 0, 8));
        List<WorkCompletion> wcs = f.await(f.cqA, 2);
        assertThat(wcs.get(0).status()).as("unsignaled request that failed").isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(wcs.get(0).wrId()).isEqualTo(1);
        assertThat(wcs.get(0).errorDetail()).isNotBlank();
        assertThat(wcs.get(1).status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(f.qpA.state()).isEqualTo(QpState.ERROR);
        WorkCompletion responder = f.awaitOne(f.cqB);
        assertThat(responder.status()).as("the responder's queue pair fails too").isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(f.qpB.state()).isEqualTo(QpState.ERROR);
    }

    @Test
    void localBufferOutsideItsRegionFailsWithLocProtErr() {
        VerbsFixture f = pair();
        f.postRecv(f.qpB, f.mrB, 1, 0, 64);
        post(f.qpA, send(1, f.mrA, VerbsFixture.REGION_SIZE - 4, 8));
        WorkCompletion wc = f.awaitOne(f.cqA);
        assertThat(wc.status()).isEqualTo(WcStatus.LOC_PROT_ERR);
        assertThat(wc.errorDetail()).contains("outside");
    }

    // ------------------------------------------------------------------ RNR

    @Test
    void sendWithoutReceiveRetriesThenFailsWithRnrRetryExceeded() {
        VerbsFixture f = pair(cq -> QpAttributes.create(cq).withRnrRetry(3).withRnrDelayMicros(2000));
        post(f.qpA, send(1, f.mrA, 0, 8), send(2, f.mrA, 0, 8));
        List<WorkCompletion> wcs = f.await(f.cqA, 2);
        assertThat(wcs.get(0).status()).isEqualTo(WcStatus.RNR_RETRY_EXC_ERR);
        assertThat(wcs.get(0).errorDetail()).contains("posted no receive");
        assertThat(wcs.get(1).status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(f.qpA.state()).isEqualTo(QpState.ERROR);
        assertThat(f.qpB.state()).as("RNR does not break the responder").isEqualTo(QpState.RTS);
    }

    @Test
    void sendWaitsThroughRnrUntilAReceiveIsPosted() throws Exception {
        VerbsFixture f = pair(cq -> QpAttributes.create(cq).withRnrRetry(QpAttributes.RNR_RETRY_INFINITE).withRnrDelayMicros(1000));
        fill(f.mrA, 0, 300, 6);
        post(f.qpA, send(1, f.mrA, 0, 300));
        assertThat(f.drainFor(f.cqA, 200)).as("no completion while the responder is not ready").isEmpty();
        f.postRecv(f.qpB, f.mrB, 4, 0, 1024);
        WorkCompletion recv = f.awaitOne(f.cqB);
        assertThat(recv.isSuccess()).isTrue();
        assertFilled(f.mrB, 0, 300, 6);
        assertThat(f.awaitOne(f.cqA).isSuccess()).isTrue();
    }

    // ------------------------------------------------------------------ queues and completions

    @Test
    void postingBeyondTheSendQueueDepthFailsWithNothingPosted() {
        VerbsFixture f = pair(cq -> QpAttributes.create(cq).withMaxSendWr(4));
        for (int i = 0; i < 8; i++) {
            f.postRecv(f.qpB, f.mrB, i, i * 64, 64);
        }
        SendWr[] five = new SendWr[5];
        for (int i = 0; i < 5; i++) {
            five[i] = send(i, f.mrA, 0, 8);
        }
        assertThatThrownBy(() -> f.qpA.postSend(five, 0, 5)).isInstanceOf(VerbsException.class).hasMessageContaining("full");
        assertThat(f.qpA.freeSendSlots()).isEqualTo(4);
        assertThat(f.drainFor(f.cqB, 50)).as("nothing of the refused batch ran").isEmpty();
        f.qpA.postSend(five, 0, 4);
        assertThat(f.qpA.freeSendSlots()).isZero();
        assertThatThrownBy(() -> f.qpA.postSend(five, 4, 1)).isInstanceOf(VerbsException.class);
        assertThat(f.await(f.cqA, 4)).allMatch(WorkCompletion::isSuccess);
        assertThat(f.qpA.freeSendSlots()).isEqualTo(4);
    }

    @Test
    void postingBeyondTheReceiveQueueDepthFails() {
        VerbsFixture f = pair(cq -> QpAttributes.create(cq).withMaxRecvWr(2));
        f.postRecv(f.qpB, f.mrB, 1, 0, 64);
        f.postRecv(f.qpB, f.mrB, 2, 64, 64);
        assertThatThrownBy(() -> f.postRecv(f.qpB, f.mrB, 3, 128, 64)).isInstanceOf(VerbsException.class).hasMessageContaining("full");
        assertThat(f.qpB.freeRecvSlots()).isZero();
    }

    @Test
    void unsignaledSuccessesProduceNoCompletionAndAreRetiredByALaterSignaledOne() {
        VerbsFixture f = pair(cq -> QpAttributes.create(cq).withMaxSendWr(4));
        for (int i = 0; i < 4; i++) {
            f.postRecv(f.qpB, f.mrB, i, i * 64, 64);
        }
        post(f.qpA, send(1, f.mrA, 0, 8).signaled(false), send(2, f.mrA, 0, 8).signaled(false), send(3, f.mrA, 0, 8).signaled(false));
        assertThat(f.await(f.cqB, 3)).allMatch(WorkCompletion::isSuccess);
        assertThat(f.drainFor(f.cqA, 100)).isEmpty();
        assertThat(f.qpA.freeSendSlots()).as("unsignaled requests hold their slots until a later completion is polled").isEqualTo(1);
        post(f.qpA, send(4, f.mrA, 0, 8));
        List<WorkCompletion> wcs = f.await(f.cqA, 1);
        assertThat(wcs.get(0).wrId()).isEqualTo(4);
        assertThat(f.qpA.freeSendSlots()).isEqualTo(4);
    }

    @Test
    void anErrorCompletesEvenUnsignaledAndFlushesEverythingAfterIt() {
        VerbsFixture f = pair();
        f.postRecv(f.qpA, f.mrA, 900, 0, 64);
        f.postRecv(f.qpA, f.mrA, 901, 64, 64);
        for (int i = 0; i < 3; i++) {
            f.postRecv(f.qpB, f.mrB, i, i * 64, 64);
        }
        SendWr bad = send(1, f.mrA, 0, 8).signaled(false);
        bad.setSge(f.mrA.address(), 8, f.mrA.lkey() ^ 0x00FF0000);
        post(f.qpA, bad, send(2, f.mrA, 0, 8).signaled(false), send(3, f.mrA, 0, 8));
        List<WorkCompletion> wcs = f.await(f.cqA, 5);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactlyInAnyOrder(1L, 2L, 3L, 900L, 901L);
        assertThat(wcs.stream().filter(w -> w.wrId() == 1).findFirst().get().status()).isEqualTo(WcStatus.LOC_PROT_ERR);
        assertThat(wcs.stream().filter(w -> w.wrId() != 1)).allMatch(w -> w.status() == WcStatus.WR_FLUSH_ERR);
        assertThat(f.qpA.errorCause()).contains("lkey");
        post(f.qpA, send(4, f.mrA, 0, 8));
        assertThat(f.awaitOne(f.cqA).status()).as("later work on a failed queue pair is flushed").isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(f.drainFor(f.cqB, 50)).as("nothing reached the peer").isEmpty();
    }

    @Test
    void queuePairsSharingACompletionQueueAreToldApart() {
        VerbsFixture f = pair();
        QueuePair second = f.ctxA.createQp(f.pdA, QpAttributes.create(f.cqA));
        QueuePair secondPeer = f.ctxB.createQp(f.pdB, QpAttributes.create(f.cqB));
        try (CmListener l = f.ctxB.listen(listenAddress(), 1)) {
            CompletableFuture<CmConnection> s = CompletableFuture.supplyAsync(() -> {
                try {
                    return l.poll(VerbsFixture.TIMEOUT).accept(secondPeer, null);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            f.ctxA.connect(l.localAddress(), second, null, VerbsFixture.TIMEOUT);
            s.join();
        }
        f.postRecv(f.qpB, f.mrB, 1, 0, 64);
        f.postRecv(secondPeer, f.mrB, 2, 64, 64);
        post(f.qpA, send(10, f.mrA, 0, 8));
        post(second, send(20, f.mrA, 0, 8));
        List<WorkCompletion> recvs = f.await(f.cqB, 2);
        assertThat(recvs).anyMatch(w -> w.wrId() == 1 && w.qpNum() == f.qpB.qpNum());
        assertThat(recvs).anyMatch(w -> w.wrId() == 2 && w.qpNum() == secondPeer.qpNum());
        List<WorkCompletion> sends = f.await(f.cqA, 2);
        assertThat(sends).anyMatch(w -> w.wrId() == 10 && w.qpNum() == f.qpA.qpNum());
        assertThat(sends).anyMatch(w -> w.wrId() == 20 && w.qpNum() == second.qpNum());
    }

    @Test
    void aCompletionQueueTooSmallForItsQueuesIsRefused() {
        VerbsContext c = openContext();
        try {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue sends = c.createCq(48);
            c.createQp(pd, QpAttributes.create(sends).withMaxSendWr(32).withMaxRecvWr(8));
            assertThatThrownBy(() -> c.createQp(pd, QpAttributes.create(sends).withMaxSendWr(32).withMaxRecvWr(8)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("larger completion queue");
            CompletionQueue receives = c.createCq(48);
            c.createQp(pd, QpAttributes.create(receives).withMaxSendWr(8).withMaxRecvWr(32));
            assertThatThrownBy(() -> c.createQp(pd, QpAttributes.create(receives).withMaxSendWr(8).withMaxRecvWr(32)))
                    .as("receive depths count against the capacity too")
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("larger completion queue");
        } finally {
            c.close();
        }
    }

    // ------------------------------------------------------------------ notification

    @Test
    void aBlockedPollerIsWokenByACompletionAndTimesOutWithoutOne() throws Exception {
        VerbsFixture f = pair();
        f.postRecv(f.qpB, f.mrB, 1, 0, 64);
        f.cqB.requestNotification();
        WorkCompletion[] wcs = VerbsFixture.newCompletions(4);
        assertThat(f.cqB.poll(wcs, 4)).isZero();
        assertThat(f.cqB.awaitNotification(50, TimeUnit.MILLISECONDS)).as("no completion: timeout").isFalse();
        AtomicBoolean woke = new AtomicBoolean();
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                boolean r = f.cqB.awaitNotification(20, TimeUnit.SECONDS);
                woke.set(true);
                return r;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(100);
        assertThat(woke).as("the waiter blocks").isFalse();
        post(f.qpA, send(1, f.mrA, 0, 8));
        assertThat(waiter.get(20, TimeUnit.SECONDS)).isTrue();
        assertThat(f.cqB.poll(wcs, 4)).isEqualTo(1);
        assertThat(wcs[0].wrId()).isEqualTo(1);
    }

    @Test
    void sendCompletionsWakeAnArmedQueueToo() throws Exception {
        VerbsFixture f = pair();
        f.postRecv(f.qpB, f.mrB, 1, 0, 64);
        f.cqA.requestNotification();
        post(f.qpA, send(1, f.mrA, 0, 8));
        assertThat(f.cqA.awaitNotification(20, TimeUnit.SECONDS)).isTrue();
        assertThat(f.awaitOne(f.cqA).isSuccess()).isTrue();
    }

    @Test
    void aFullArmIsRaisedByAnyCompletion() throws Exception {
        VerbsFixture f = pair();
        f.postRecv(f.qpB, f.mrB, 1, 0, 64);
        f.cqA.requestNotification(false);
        f.cqB.requestNotification(false);
        post(f.qpA, send(1, f.mrA, 0, 8)); // neither solicited nor failed
        assertThat(f.cqB.awaitNotification(20, TimeUnit.SECONDS)).as("an unsolicited receive").isTrue();
        assertThat(f.cqA.awaitNotification(20, TimeUnit.SECONDS)).as("a successful send completion").isTrue();
        assertThat(f.awaitOne(f.cqB).isSuccess()).isTrue();
        assertThat(f.awaitOne(f.cqA).isSuccess()).isTrue();
    }

    /**
     * ibv_req_notify_cq(cq, 1): successful send completions and receives of unsolicited messages
     * are polled as usual but raise nothing; the arm stays until a solicited one comes.
     */
    @Test
    void aSolicitedOnlyArmIgnoresTenThousandUnsolicitedReceivesAndSuccessfulSends() throws Exception {
        VerbsFixture f = pair();
        int depth = QpAttributes.DEFAULT_RECV_DEPTH;
        RecvWr[] recvs = new RecvWr[depth];
        SendWr[] sends = new SendWr[depth];
        for (int i = 0; i < depth; i++) {
            recvs[i] = new RecvWr().wrId(i);
            recvs[i].setSge(f.mrB, i * 64, 64);
            sends[i] = send(i, f.mrA, i * 64, 16); // signaled: every one is a successful send completion
        }
        f.cqA.requestNotification(true);
        f.cqB.requestNotification(true);
        int total = 10_000;
        for (int done = 0; done < total; ) {
            int n = Math.min(depth, total - done);
            f.qpB.postRecv(recvs, 0, n);
            f.qpA.postSend(sends, 0, n);
            List<WorkCompletion> sent = f.await(f.cqA, n);
            List<WorkCompletion> received = f.await(f.cqB, n);
            for (int i = 0; i < n; i++) {
                assertThat(sent.get(i).isSuccess()).isTrue();
                assertThat(received.get(i).isSuccess()).isTrue();
                assertThat(received.get(i).opcode()).isEqualTo(WcOpcode.RECV);
            }
            done += n;
        }
        assertThat(f.cqB.awaitNotification(50, TimeUnit.MILLISECONDS)).as("10,000 unsolicited receives raise nothing").isFalse();
        assertThat(f.cqA.awaitNotification(50, TimeUnit.MILLISECONDS)).as("10,000 successful sends raise nothing").isFalse();

        f.postRecv(f.qpB, f.mrB, 77, 0, 64);
        post(f.qpA, send(78, f.mrA, 0, 8).solicited(true));
        assertThat(f.cqB.awaitNotification(20, TimeUnit.SECONDS)).as("a solicited SEND raises the arm made before").isTrue();
        WorkCompletion wc = f.awaitOne(f.cqB);
        assertThat(wc.wrId()).isEqualTo(77);
        assertThat(wc.isSuccess()).isTrue();
        assertThat(f.awaitOne(f.cqA).isSuccess()).isTrue();
        assertThat(f.cqA.awaitNotification(50, TimeUnit.MILLISECONDS)).as("its successful send completion does not").isFalse();
    }

    @Test
    void aSolicitedWriteWithImmediateRaisesASolicitedOnlyArm() throws Exception {
        VerbsFixture f = pair();
        f.postRecv(f.qpB, f.mrB, 1, 0, 64);
        f.postRecv(f.qpB, f.mrB, 2, 64, 64);
        f.cqB.requestNotification(true);
        post(f.qpA, rdma(WrOpcode.WRITE_WITH_IMM, 1, f.mrA, 0, 32, f.mrB.address() + 4096, f.mrB.rkey()).immData(5));
        assertThat(f.awaitOne(f.cqB).immData()).isEqualTo(5);
        assertThat(f.cqB.awaitNotification(50, TimeUnit.MILLISECONDS)).as("unsolicited: no event").isFalse();
        post(f.qpA, rdma(WrOpcode.WRITE_WITH_IMM, 2, f.mrA, 0, 32, f.mrB.address() + 4096, f.mrB.rkey()).immData(6).solicited(true));
        assertThat(f.cqB.awaitNotification(20, TimeUnit.SECONDS)).isTrue();
        WorkCompletion wc = f.awaitOne(f.cqB);
        assertThat(wc.opcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(wc.immData()).isEqualTo(6);
    }

    /** A completion with an error status is solicited, on both sides. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"message larger than the receive", "WRITE with an unknown rkey"})
    void anErrorRaisesASolicitedOnlyArm(String variant) throws Exception {
        VerbsFixture f = pair();
        f.postRecv(f.qpB, f.mrB, 1, 0, 64);
        f.cqA.requestNotification(true);
        f.cqB.requestNotification(true);
        if (variant.startsWith("message")) {
            post(f.qpA, send(1, f.mrA, 0, 128));
        } else {
            post(f.qpA, rdma(WrOpcode.WRITE, 1, f.mrA, 0, 64, f.mrB.address(), f.mrB.rkey() ^ 0x5A5A0000));
        }
        assertThat(f.cqA.awaitNotification(20, TimeUnit.SECONDS)).as("the requester's failed send").isTrue();
        assertThat(f.awaitOne(f.cqA).isSuccess()).isFalse();
        assertThat(f.cqB.awaitNotification(20, TimeUnit.SECONDS)).as("the responder's failed or flushed receive").isTrue();
        assertThat(f.awaitOne(f.cqB).isSuccess()).isFalse();
    }

    /** A blocked poller that arms solicited-only, then polls, then waits, is never left asleep with a solicited completion pending. */
    @Test
    void solicitedOnlyBlockingPingPongLosesNoWakeUp() throws Exception {
        VerbsFixture f = pair();
        int rounds = 2_000;
        for (int i = 0; i < 8; i++) {
            f.postRecv(f.qpA, f.mrA, i, 8192 + i * 64, 64);
            f.postRecv(f.qpB, f.mrB, i, 8192 + i * 64, 64);
        }
        CompletableFuture<Void> b = CompletableFuture.runAsync(() -> pingPong(f, f.qpB, f.cqB, f.mrB, rounds, false));
        pingPong(f, f.qpA, f.cqA, f.mrA, rounds, true);
        b.get(60, TimeUnit.SECONDS);
    }

    /** One side of a blocking ping-pong: waits for each message (arm solicited-only, poll, wait) and answers it. */
    private static void pingPong(VerbsFixture f, QueuePair qp, CompletionQueue cq, MemoryRegion mr, int rounds, boolean starts) {
        WorkCompletion[] wcs = VerbsFixture.newCompletions(16);
        SendWr[] msg = {send(0, mr, 0, 8).solicited(true)};
        RecvWr[] repost = {new RecvWr()};
        if (starts) {
            qp.postSend(msg, 0, 1);
        }
        int received = 0;
        try {
            while (received < rounds) {
                int n = cq.poll(wcs, wcs.length);
                if (n == 0) {
                    cq.requestNotification(true);
                    n = cq.poll(wcs, wcs.length);
                    if (n == 0) {
                        assertThat(cq.awaitNotification(20, TimeUnit.SECONDS)).as("woken for message %d", received + 1).isTrue();
                        continue;
                    }
                }
                for (int i = 0; i < n; i++) {
                    assertThat(wcs[i].isSuccess()).as("%s", wcs[i]).isTrue();
                    if (wcs[i].opcode() != WcOpcode.RECV) {
                        continue;
                    }
                    received++;
                    repost[0].wrId(wcs[i].wrId()).setSge(mr, 8192 + (int) wcs[i].wrId() * 64, 64);
                    qp.postRecv(repost, 0, 1);
                    if (received < rounds || !starts) {
                        qp.postSend(msg, 0, 1);
                    }
                }
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    // ------------------------------------------------------------------ doorbell: one wake-up per post

    @Test
    void aBatchOfSendsIntoAnArmedPeerWakesItOnce() throws Exception {
        VerbsFixture f = pair();
        int n = 16;
        SendWr[] batch = new SendWr[n];
        for (int i = 0; i < n; i++) {
            f.postRecv(f.qpB, f.mrB, i, i * 64, 64);
            batch[i] = send(i, f.mrA, 0, 8).signaled(i == n - 1);
        }
        long before = wakeupsOf(f.qpA);
        f.cqB.requestNotification();
        f.qpA.postSend(batch, 0, n);
        assertThat(wakeupsOf(f.qpA) - before).as("%d completions, one post: one wake-up", n).isEqualTo(1);
        assertThat(f.cqB.awaitNotification(20, TimeUnit.SECONDS)).isTrue();
        assertThat(f.await(f.cqB, n)).allMatch(WorkCompletion::isSuccess);
        assertThat(f.awaitOne(f.cqA).isSuccess()).isTrue(); // the signaled last one retires the batch's slots

        for (int i = 0; i < n; i++) {
            f.postRecv(f.qpB, f.mrB, i, i * 64, 64);
        }
        f.qpA.postSend(batch, 0, n); // the wait used the arm up: nobody is armed
        assertThat(wakeupsOf(f.qpA) - before).as("no wake-up for a peer that is not armed").isEqualTo(1);
        assertThat(f.await(f.cqB, n)).allMatch(WorkCompletion::isSuccess);
        assertThat(f.awaitOne(f.cqA).isSuccess()).isTrue();

        for (int i = 0; i < n; i++) {
            f.postRecv(f.qpB, f.mrB, i, i * 64, 64);
            batch[i].solicited(i == n / 2);
        }
        f.cqB.requestNotification(true);
        f.qpA.postSend(batch, 0, n / 2); // none solicited
        assertThat(wakeupsOf(f.qpA) - before).as("a solicited-only arm, nothing solicited").isEqualTo(1);
        f.qpA.postSend(batch, n / 2, n / 2); // the first of these is
        assertThat(wakeupsOf(f.qpA) - before).as("one solicited among eight").isEqualTo(2);
        assertThat(f.cqB.awaitNotification(20, TimeUnit.SECONDS)).isTrue();
        assertThat(f.await(f.cqB, n)).allMatch(WorkCompletion::isSuccess);
        assertThat(f.awaitOne(f.cqA).isSuccess()).isTrue();
    }

    /**
     * The wake-up comes after the whole batch, not with its first completion: a poller that is
     * armed while a large batch arrives is woken once, and its first poll finds every message.
     */
    @Test
    void aPeerArmedDuringALargeBatchIsWokenOnceAfterIt() throws Exception {
        int n = 512;
        VerbsFixture f = pair(cq -> QpAttributes.create(cq).withMaxSendWr(n).withMaxRecvWr(n));
        SendWr[] batch = new SendWr[n];
        for (int i = 0; i < n; i++) {
            f.postRecv(f.qpB, f.mrB, i, i * 64, 64);
            batch[i] = send(i, f.mrA, 0, 8).signaled(i == n - 1);
        }
        long before = wakeupsOf(f.qpA);
        java.util.concurrent.CountDownLatch armed = new java.util.concurrent.CountDownLatch(1);
        CompletableFuture<Integer> firstPoll = CompletableFuture.supplyAsync(() -> {
            WorkCompletion[] wcs = VerbsFixture.newCompletions(n);
            f.cqB.requestNotification();
            int got = f.cqB.poll(wcs, n);
            armed.countDown();
            try {
                if (got == 0 && f.cqB.awaitNotification(20, TimeUnit.SECONDS)) {
                    got = f.cqB.poll(wcs, n);
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return got;
        });
        assertThat(armed.await(20, TimeUnit.SECONDS)).isTrue();
        f.qpA.postSend(batch, 0, n);
        assertThat(firstPoll.get(20, TimeUnit.SECONDS)).as("the first poll after the wake-up finds the whole batch").isEqualTo(n);
        assertThat(wakeupsOf(f.qpA) - before).isEqualTo(1);
        assertThat(f.awaitOne(f.cqA).isSuccess()).isTrue();
    }

    /** A post that stops at RNR rings for what it delivered; the provider thread's retry rings once more for the rest. */
    @Test
    void theRetryAfterRnrRingsOnceForWhatItDelivers() throws Exception {
        VerbsFixture f = pair(cq -> QpAttributes.create(cq).withRnrRetry(QpAttributes.RNR_RETRY_INFINITE));
        int n = 8;
        SendWr[] batch = new SendWr[n];
        for (int i = 0; i < n; i++) {
            batch[i] = send(i, f.mrA, 0, 8);
        }
        for (int i = 0; i < 3; i++) {
            f.postRecv(f.qpB, f.mrB, i, i * 64, 64);
        }
        long before = wakeupsOf(f.qpA);
        f.cqB.requestNotification();
        f.qpA.postSend(batch, 0, n); // three delivered, then RNR
        assertThat(wakeupsOf(f.qpA) - before).isEqualTo(1);
        assertThat(f.cqB.awaitNotification(20, TimeUnit.SECONDS)).isTrue();
        assertThat(f.await(f.cqB, 3)).allMatch(WorkCompletion::isSuccess);
        f.cqB.requestNotification();
        for (int i = 3; i < n; i++) {
            f.postRecv(f.qpB, f.mrB, i, i * 64, 64);
        }
        assertThat(f.cqB.awaitNotification(20, TimeUnit.SECONDS)).as("woken by the retry").isTrue();
        assertThat(f.await(f.cqB, n - 3)).allMatch(WorkCompletion::isSuccess);
        assertThat(f.await(f.cqA, n)).allMatch(WorkCompletion::isSuccess);
        // the retry runs on the provider thread, which counts its ring after the ring: the event can come first
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (wakeupsOf(f.qpA) - before < 2 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(wakeupsOf(f.qpA) - before).as("one more, by the run that delivered after the arm").isEqualTo(2);
    }

    // ------------------------------------------------------------------ dead peers

    @Test
    void outstandingWorkFailsWithRetryExceededWhenThePeerVanishes() throws Exception {
        assumeVanishedPeerRules();
        VerbsFixture f = pair(cq -> QpAttributes.create(cq).withRnrRetry(QpAttributes.RNR_RETRY_INFINITE));
        post(f.qpA, send(1, f.mrA, 0, 8), send(2, f.mrA, 0, 8)); // no receive at b: stays outstanding
        assertThat(f.drainFor(f.cqA, 50)).isEmpty();
        long start = System.nanoTime();
        vanish(f.ctxB);
        List<WorkCompletion> wcs = f.await(f.cqA, 2);
        long tookMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(wcs.get(0).status()).isEqualTo(WcStatus.RETRY_EXC_ERR);
        assertThat(wcs.get(0).errorDetail()).isNotBlank();
        assertThat(wcs.get(1).status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(tookMillis).as("detected within the configured bound").isLessThan(peerDeathBound().toMillis());
        assertThat(f.connA.onDisconnect().get(20, TimeUnit.SECONDS)).isNotBlank();
    }

    @Test
    void laterWorkFailsOnceAnIdlePeerVanished() throws Exception {
        assumeVanishedPeerRules();
        VerbsFixture f = pair();
        f.postRecv(f.qpA, f.mrA, 5, 0, 64);
        vanish(f.ctxB);
        String cause = f.connA.onDisconnect().get(peerDeathBound().toMillis(), TimeUnit.MILLISECONDS);
        assertThat(cause).isNotBlank();
        assertThat(f.awaitOne(f.cqA).status()).as("posted receive flushed").isEqualTo(WcStatus.WR_FLUSH_ERR);
        post(f.qpA, send(1, f.mrA, 0, 8), send(2, f.mrA, 0, 8));
        List<WorkCompletion> wcs = f.await(f.cqA, 2);
        assertThat(wcs.get(0).status()).isEqualTo(WcStatus.RETRY_EXC_ERR);
        assertThat(wcs.get(1).status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
    }

    // ------------------------------------------------------------------ memory

    @Test
    void regionsHaveDistinctKeysAndBadAllocationsAreRefused() {
        VerbsContext c = openContext();
        try {
            ProtectionDomain pd = c.allocPd();
            MemoryRegion a = pd.allocate(4096, AccessFlags.LOCAL_WRITE);
            MemoryRegion b = pd.allocate(4096, AccessFlags.LOCAL_WRITE);
            assertThat(a.lkey()).isNotEqualTo(b.lkey());
            assertThat(a.buffer().capacity()).isEqualTo(4096);
            a.close();
            MemoryRegion c2 = pd.allocate(4096, AccessFlags.LOCAL_WRITE);
            assertThat(c2.lkey()).as("a reused slot gets a new key").isNotEqualTo(a.lkey());
            assertThat(a.isValid()).isFalse();
            assertThatThrownBy(() -> pd.allocate(0, AccessFlags.LOCAL_WRITE)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> pd.allocate(4096, AccessFlags.REMOTE_WRITE)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("LOCAL_WRITE");
            assertThatThrownBy(() -> pd.allocate(4096, 0x100)).isInstanceOf(IllegalArgumentException.class);
        } finally {
            c.close();
        }
    }
}
