package io.reactorrdma.verbs.soft;

import io.reactorrdma.config.SoftConfig;
import io.reactorrdma.verbs.AccessFlags;
import io.reactorrdma.verbs.QpState;
import io.reactorrdma.verbs.VerbsFixture;
import io.reactorrdma.verbs.work.WcStatus;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;
import io.reactorrdma.verbs.soft.shared.QpLayout;
import io.reactorrdma.verbs.soft.shared.RegionKeys;
import io.reactorrdma.verbs.soft.shared.RegionTableLayout;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static io.reactorrdma.verbs.VerbsFixture.post;
import static io.reactorrdma.verbs.VerbsFixture.rdma;
import static io.reactorrdma.verbs.VerbsFixture.send;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shared structures written by a peer are untrusted. Each test corrupts one on purpose — as a
 * buggy or hostile peer process would — and checks that the result is a clear error on that
 * queue pair only: no crash, no write outside a registered region, no hang, and other queue
 * pairs between the same two contexts keep working.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SharedStructureCorruptionTest {

    static Path dir;
    private VerbsFixture f;

    @BeforeAll
    static void directory() {
        dir = Paths.get("/dev/shm", "reactor-rdma-corrupt-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
    }

    @AfterAll
    static void cleanup() throws IOException {
        ShmTestSupport.deleteTree(dir);
    }

    @AfterEach
    void close() {
        if (f != null) {
            f.close();
        }
    }

    private VerbsFixture pair(String fabric) {
        SoftConfig config = SoftConfig.defaults().withShmDirectory(dir).withPeerTimeout(Duration.ofMillis(500));
        if (fabric.equals("shm")) {
            f = VerbsFixture.connected(SoftContext.openShm(config), SoftContext.openShm(config));
        } else {
            f = VerbsFixture.connected(SoftContext.openLoopback(config), SoftContext.openLoopback(config));
        }
        return f;
    }

    /** B's queue-pair structure: for shm, the very file A has mapped. */
    private static ByteBuffer structureOf(io.reactorrdma.verbs.QueuePair qp) {
        return ((SoftQueuePair) qp).mem;
    }

    private static int slot0(io.reactorrdma.verbs.QueuePair qp) {
        return QpLayout.rqSlotOffset(0, qp.attributes().maxRecvSge());
    }

    /** A new pair of queue pairs between the same contexts still carries data. */
    private void assertOtherQueuePairsStillWork() {
        VerbsFixture healthy = new VerbsFixture(f.ctxA, f.ctxB, io.reactorrdma.verbs.QpAttributes::create,
                io.reactorrdma.verbs.QpAttributes::create, true);
        healthy.postRecv(healthy.qpB, healthy.mrB, 1, 0, 64);
        VerbsFixture.fill(healthy.mrA, 0, 64, 77);
        post(healthy.qpA, send(1, healthy.mrA, 0, 64));
        WorkCompletion wc = healthy.awaitOne(healthy.cqB);
        assertThat(wc.isSuccess()).isTrue();
        VerbsFixture.assertFilled(healthy.mrB, 0, 64, 77);
        assertThat(healthy.awaitOne(healthy.cqA).isSuccess()).isTrue();
    }

    private static void assertAllZero(io.reactorrdma.verbs.MemoryRegion mr) {
        ByteBuffer b = mr.buffer();
        for (int i = 0; i < mr.length(); i += 8) {
            if (b.getLong(i) != 0) {
                throw new AssertionError("region written at offset " + i);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"loopback", "shm"})
    void garbageSequenceInAReceiveSlot(String fabric) {
        pair(fabric);
        f.postRecv(f.qpB, f.mrB, 1, 0, 64);
        structureOf(f.qpB).putLong(slot0(f.qpB) + QpLayout.RQ_POST_SEQ, 0x1234_5678_9ABCL);
        post(f.qpA, send(1, f.mrA, 0, 8));
        WorkCompletion wc = f.awaitOne(f.cqA);
        assertThat(wc.status()).isEqualTo(WcStatus.REM_OP_ERR);
        assertThat(wc.errorDetail()).contains("receive queue is corrupt");
        assertThat(f.qpA.state()).isEqualTo(QpState.ERROR);
        assertOtherQueuePairsStillWork();
    }

    @ParameterizedTest(name = "{0} {1}")
    @org.junit.jupiter.params.provider.CsvSource({
            "loopback, address before the region", "shm, address before the region",
            "loopback, length beyond the region", "shm, length beyond the region",
            "loopback, unknown key", "shm, unknown key",
            "loopback, negative length", "shm, negative length"})
    void receiveDescriptorPointingOutsideARegion(String fabric, String variant) {
        pair(fabric);
        f.postRecv(f.qpB, f.mrB, 1, 0, 64);
        ByteBuffer b = structureOf(f.qpB);
        int sge = slot0(f.qpB) + QpLayout.RQ_SGES;
        switch (variant) {
            case "address before the region":
                b.putLong(sge + QpLayout.SGE_ADDR, f.mrB.address() - 4096);
                break;
            case "length beyond the region":
                b.putInt(sge + QpLayout.SGE_LENGTH, Integer.MAX_VALUE);
                break;
            case "negative length":
                b.putInt(sge + QpLayout.SGE_LENGTH, -5);
                break;
            default:
                b.putInt(sge + QpLayout.SGE_LKEY, 0x7777_0123);
        }
        VerbsFixture.fill(f.mrA, 0, 64, 3);
        post(f.qpA, send(1, f.mrA, 0, 64));
        WorkCompletion sent = f.awaitOne(f.cqA);
        assertThat(sent.status()).isEqualTo(WcStatus.REM_OP_ERR);
        assertThat(sent.errorDetail()).contains("invalid");
        WorkCompletion recv = f.awaitOne(f.cqB);
        assertThat(recv.status()).isIn(WcStatus.LOC_PROT_ERR);
        assertAllZero(f.mrB);
        assertOtherQueuePairsStillWork();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"loopback", "shm"})
    void garbageEntryCountInAReceiveDescriptor(String fabric) {
        pair(fabric);
        f.postRecv(f.qpB, f.mrB, 1, 0, 64);
        structureOf(f.qpB).putInt(slot0(f.qpB) + QpLayout.RQ_NUM_SGE, 100_000);
        post(f.qpA, send(1, f.mrA, 0, 8));
        assertThat(f.awaitOne(f.cqA).status()).isEqualTo(WcStatus.REM_OP_ERR);
        WorkCompletion recv = f.awaitOne(f.cqB);
        assertThat(recv.status()).isEqualTo(WcStatus.LOC_QP_OP_ERR);
        assertOtherQueuePairsStillWork();
    }

    @ParameterizedTest(name = "{0} {1}")
    @org.junit.jupiter.params.provider.CsvSource({
            "loopback, status", "shm, status", "loopback, opcode", "shm, opcode",
            "loopback, length", "shm, length", "loopback, flags", "shm, flags", "loopback, inline length", "shm, inline length"})
    void malformedCompletionWrittenByThePeer(String fabric, String field) {
        pair(fabric);
        f.postRecv(f.qpB, f.mrB, 1, 0, 256);
        post(f.qpA, send(1, f.mrA, 0, 8));
        assertThat(f.awaitOne(f.cqA).isSuccess()).isTrue();
        ByteBuffer b = structureOf(f.qpB);
        int s = slot0(f.qpB);
        switch (field) {
            case "status":
                b.putInt(s + QpLayout.RQ_STATUS, 99);
                break;
            case "opcode":
                b.putInt(s + QpLayout.RQ_OPCODE, 7);
                break;
            case "length":
                b.putInt(s + QpLayout.RQ_BYTE_LEN, 1 << 30);
                break;
            case "inline length": // fits the receive, not the slot: copying it would read past the slot
                assertThat(b.getInt(s + QpLayout.RQ_FLAGS) & QpLayout.FLAG_INLINE).as("8 bytes travel inline").isNotZero();
                b.putInt(s + QpLayout.RQ_BYTE_LEN, QpLayout.RQ_INLINE_MAX + 1);
                break;
            default:
                b.putInt(s + QpLayout.RQ_FLAGS, 0xF0);
        }
        WorkCompletion recv = f.awaitOne(f.cqB);
        assertThat(recv.status()).isEqualTo(WcStatus.LOC_QP_OP_ERR);
        assertThat(recv.wrId()).as("the wr id comes from our own records, not the shared slot").isEqualTo(1);
        assertThat(recv.errorDetail()).contains("malformed completion");
        assertThat(f.qpB.state()).isEqualTo(QpState.ERROR);
        assertOtherQueuePairsStillWork();
    }

    /**
     * A small message waits in the receive slot until it is polled; if the application deregistered
     * the receive's buffer meanwhile, the receive fails with LOC_PROT_ERR and nothing is written.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"loopback", "shm"})
    void anInlineMessageWhoseBufferWasDeregisteredBeforeThePollFailsTheReceive(String fabric) {
        pair(fabric);
        io.reactorrdma.verbs.MemoryRegion gone = f.pdB.allocate(4096, AccessFlags.LOCAL_WRITE);
        f.postRecv(f.qpB, gone, 6, 0, 64);
        post(f.qpA, send(1, f.mrA, 0, 8));
        assertThat(f.awaitOne(f.cqA).isSuccess()).as("the peer checked the buffer when it sent").isTrue();
        gone.close();
        WorkCompletion recv = f.awaitOne(f.cqB);
        assertThat(recv.status()).isEqualTo(WcStatus.LOC_PROT_ERR);
        assertThat(recv.wrId()).isEqualTo(6);
        assertThat(recv.errorDetail()).contains("no longer in a registered");
        assertThat(f.qpB.state()).isEqualTo(QpState.ERROR);
        assertOtherQueuePairsStillWork();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"loopback", "shm"})
    void garbageCompletionSequence(String fabric) {
        pair(fabric);
        f.postRecv(f.qpB, f.mrB, 1, 0, 64);
        structureOf(f.qpB).putLong(slot0(f.qpB) + QpLayout.RQ_DONE_SEQ, 777);
        WorkCompletion recv = f.awaitOne(f.cqB);
        assertThat(recv.status()).isEqualTo(WcStatus.LOC_QP_OP_ERR);
        assertThat(recv.errorDetail()).contains("corrupted");
        assertOtherQueuePairsStillWork();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"loopback", "shm"})
    void garbageQueuePairState(String fabric) {
        pair(fabric);
        f.postRecv(f.qpB, f.mrB, 1, 0, 64);
        structureOf(f.qpB).putInt(QpLayout.H_STATE, 0x5A5A5A5A);
        post(f.qpA, send(1, f.mrA, 0, 8));
        WorkCompletion wc = f.awaitOne(f.cqA);
        assertThat(wc.status()).isEqualTo(WcStatus.RETRY_EXC_ERR);
        assertOtherQueuePairsStillWork();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"loopback", "shm"})
    void randomBytesOverTheWholeSharedStructure(String fabric) {
        pair(fabric);
        for (int i = 0; i < 8; i++) {
            f.postRecv(f.qpB, f.mrB, i, i * 64, 64);
        }
        ByteBuffer b = structureOf(f.qpB);
        Random random = new Random(1234);
        int shared = QpLayout.sharedSize(f.qpB.attributes().maxRecvWr(), f.qpB.attributes().maxRecvSge());
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < shared; i += 4) {
                b.putInt(i, random.nextInt());
            }
            try {
                post(f.qpA, send(round, f.mrA, 0, 8),
                        rdma(WrOpcode.WRITE_WITH_IMM, 100 + round, f.mrA, 0, 8, f.mrB.address(), f.mrB.rkey()));
            } catch (io.reactorrdma.verbs.VerbsException full) {
                // a failed queue pair keeps flushing; the queue may be full of flushes not polled yet
            }
            f.drainFor(f.cqA, 20);
            f.drainFor(f.cqB, 20); // B polls garbage: errors, never an exception
        }
        assertThat(f.qpA.state()).isEqualTo(QpState.ERROR);
        assertThat(f.qpA.errorCause()).isNotBlank();
        assertOtherQueuePairsStillWork();
    }

    @Test
    void aRegionWhoseFileWasTornDownIsARemoteAccessError() throws IOException {
        pair("shm");
        SoftContext b = (SoftContext) f.ctxB;
        Files.delete(dir.resolve(b.id() + ".r" + Integer.toHexString(f.mrB.rkey())));
        post(f.qpA, rdma(WrOpcode.WRITE, 1, f.mrA, 0, 64, f.mrB.address(), f.mrB.rkey()));
        WorkCompletion wc = f.awaitOne(f.cqA);
        assertThat(wc.status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(wc.errorDetail()).contains("cannot be mapped");
        assertOtherQueuePairsStillWork();
    }

    @Test
    void aMalformedRegionTableEntryIsARemoteAccessError() throws IOException {
        pair("shm");
        SoftContext b = (SoftContext) f.ctxB;
        io.reactorrdma.verbs.MemoryRegion fresh = f.pdB.allocate(4096, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(dir.resolve(b.id() + ".regions"),
                java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
            ByteBuffer table = ch.map(java.nio.channels.FileChannel.MapMode.READ_WRITE, 0, ch.size())
                    .order(java.nio.ByteOrder.nativeOrder());
            table.putInt(RegionTableLayout.entryOffset(RegionKeys.index(fresh.rkey())) + RegionTableLayout.E_LENGTH, -1);
        }
        post(f.qpA, rdma(WrOpcode.WRITE, 1, f.mrA, 0, 64, fresh.address(), fresh.rkey()));
        WorkCompletion wc = f.awaitOne(f.cqA);
        assertThat(wc.status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(wc.errorDetail()).contains("malformed");
        assertOtherQueuePairsStillWork();
    }

    @Test
    void anUnknownControlByteEndsThatConnectionOnly() throws Exception {
        pair("shm");
        ShmLink link = (ShmLink) ((SoftQueuePair) f.qpA).link();
        link.channel.write(ByteBuffer.wrap(new byte[]{'X'}));
        String cause = f.connB.onDisconnect().get(20, TimeUnit.SECONDS);
        assertThat(cause).contains("not part of the protocol");
        assertOtherQueuePairsStillWork();
    }

    @Test
    void garbageOnAListenerSocketIsDroppedAndTheListenerKeepsWorking() throws Exception {
        pair("shm");
        try (io.reactorrdma.verbs.CmListener l = f.ctxB.listen(new java.net.InetSocketAddress("127.0.0.1", 0), 2)) {
            Path socket = dir.resolve("port-" + l.localAddress().getPort() + ".sock");
            for (byte[] junk : List.of(new byte[]{0, 0, 0, 5, 1, 2, 3, 4, 5},
                    new byte[]{(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF},
                    "GET / HTTP/1.1\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII))) {
                try (SocketChannel raw = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                    raw.connect(UnixDomainSocketAddress.of(socket));
                    raw.write(ByteBuffer.wrap(junk));
                }
            }
            assertThat(l.poll(Duration.ofMillis(300))).as("garbage makes no connection request").isNull();
        }
        assertOtherQueuePairsStillWork();
    }
}
