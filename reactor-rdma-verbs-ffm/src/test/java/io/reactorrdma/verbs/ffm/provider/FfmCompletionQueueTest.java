package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.ffm.abi.VerbsConstants;
import io.reactorrdma.verbs.ffm.rdmacore.Libibverbs;
import io.reactorrdma.verbs.ffm.rdmacore.RdmaDevice;
import io.reactorrdma.verbs.ffm.testing.EmulatedRdmaCore;
import io.reactorrdma.verbs.work.WcOpcode;
import io.reactorrdma.verbs.work.WcStatus;
import io.reactorrdma.verbs.work.SendWr;
import io.reactorrdma.verbs.work.WorkCompletion;
import io.reactorrdma.verbs.work.WrOpcode;
import io.reactorrdma.verbs.work.tracking.CompletionDecoder;
import io.reactorrdma.verbs.work.tracking.QpRecord;
import io.reactorrdma.verbs.work.tracking.QpTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The SPI's completion queue over rdma-core, on the emulated library: completions mapped into {@link WorkCompletion}s,
 * the wait that an armed queue's event ends, and a wake-up from another thread that ends it at once (no time slices).
 */
class FfmCompletionQueueTest {

    @TempDir
    Path dir;

    private Arena arena;
    private RdmaDevice device;
    private FfmCompletionQueue cq;
    private MethodHandle complete;
    private final QpTable table = new QpTable();

    @BeforeEach
    void open() throws Exception {
        Path so = EmulatedRdmaCore.build(dir);
        arena = Arena.ofShared();
        device = Libibverbs.open(Optional.of(so), arena).openDevice("emu0");
        cq = new FfmCompletionQueue(device, 32, new CompletionDecoder(table), gone -> { });
        complete = Linker.nativeLinker().downcallHandle(SymbolLookup.libraryLookup(so, arena).find("emu_complete").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    }

    @AfterEach
    void close() {
        cq.close();
        device.close();
        arena.close();
    }

    @Test
    void completionsAreDecodedIntoTheCallersWorkCompletionsAndAFailureIsNamedFromTheRecords() throws Throwable {
        QpRecord qp = table.add(4, 4);
        qp.qpNum(9);
        qp.work.recordRecvs(new long[]{5}, 1);
        SendWr write = new SendWr().wrId(6).opcode(WrOpcode.WRITE).remote(0x2000, 3);
        write.setSge(0x1000, 64, 1);
        long sendToken = qp.sendToken(qp.work.nextSendSlot(0));
        qp.work.recordSends(new SendWr[]{write}, 0, 1);
        qp.work.publishSends(1);
        WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
        add(qp.recvToken(), VerbsConstants.IBV_WC_SUCCESS, VerbsConstants.IBV_WC_RECV, 100, true);
        // the emulation fills a failed completion's opcode and length with junk, as a device may
        add(sendToken, VerbsConstants.IBV_WC_REM_ACCESS_ERR, VerbsConstants.IBV_WC_RDMA_WRITE, 0, false);
        assertThat(cq.poll(wcs, 3)).isEqualTo(2);
        assertThat(wcs[0].wrId()).isEqualTo(5);
        assertThat(wcs[0].status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(wcs[0].opcode()).isEqualTo(WcOpcode.RECV);
        assertThat(wcs[0].byteLen()).isEqualTo(100);
        assertThat(wcs[0].qpNum()).isEqualTo(9);
        assertThat(wcs[1].status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(wcs[1].wrId()).isEqualTo(6);
        assertThat(wcs[1].opcode()).as("from the queue pair's records").isEqualTo(WcOpcode.RDMA_WRITE);
        assertThat(wcs[1].byteLen()).as("undefined for a failed completion: not passed on").isZero();
        assertThat(wcs[1].errorDetail()).contains("IBV_WC_REM_ACCESS_ERR", "WRITE of 64 bytes", "wrId 6");
        assertThat(qp.work.freeSendSlots()).isEqualTo(4);
        assertThat(cq.poll(wcs, 3)).isZero();
        assertThat(cq.capacity()).isEqualTo(32);
    }

    @Test
    void aCompletionOfNoLiveQueuePairIsDropped() throws Throwable {
        QpRecord qp = table.add(4, 4);
        long token = qp.recvToken();
        table.remove(qp);
        add(token, VerbsConstants.IBV_WC_WR_FLUSH_ERR, VerbsConstants.IBV_WC_RECV, 0, false);
        assertThat(cq.poll(new WorkCompletion[]{new WorkCompletion()}, 1)).isZero();
    }

    @Test
    void anOverrunQueueFailsItsPollsSayingWhat() throws Throwable {
        try (FfmCompletionQueue small = new FfmCompletionQueue(device, 1, new CompletionDecoder(table), gone -> { })) {
            MemorySegment raw = MemorySegment.ofAddress(small.cq().address());
            for (int i = 0; i < 2; i++) { // the native queue holds twice the capacity
                assertThat((int) complete.invokeExact(raw, (long) i, VerbsConstants.IBV_WC_SUCCESS, VerbsConstants.IBV_WC_SEND,
                        0, 9, 0)).isZero();
            }
            assertThat((int) complete.invokeExact(raw, 2L, VerbsConstants.IBV_WC_SUCCESS, VerbsConstants.IBV_WC_SEND, 0, 9, 0))
                    .as("ENOSPC: the third overruns it").isEqualTo(28);
            assertThatThrownBy(() -> small.poll(new WorkCompletion[]{new WorkCompletion()}, 1)).isInstanceOf(VerbsException.class)
                    .hasMessageContaining("overrun").hasMessageContaining("are lost");
        }
    }

    @Test
    void anArmedQueuesSolicitedReceiveEndsTheWait() throws Throwable {
        cq.requestNotification(true);
        add(1, VerbsConstants.IBV_WC_SUCCESS, VerbsConstants.IBV_WC_SEND, 0, false);
        assertThat(cq.awaitNotification(10, TimeUnit.MILLISECONDS)).as("a send completion raises no event").isFalse();
        add(2, VerbsConstants.IBV_WC_SUCCESS, VerbsConstants.IBV_WC_RECV, 8, true);
        assertThat(cq.awaitNotification(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aWakeupFromAnotherThreadEndsAWaitAtOnce() throws Exception {
        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<Boolean> woken = CompletableFuture.supplyAsync(() -> {
            try {
                waiting.countDown();
                return cq.awaitNotification(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(waiting.await(30, TimeUnit.SECONDS)).isTrue();
        cq.wakeup(); // before or during the wait: either way it returns, false, long before its 60 s
        assertThat(woken.get(30, TimeUnit.SECONDS)).isFalse();
    }

    @Test
    void aWakeupBeforeTheWaitMakesItReturnAndAnInterruptIsHonoured() throws Exception {
        cq.wakeup();
        assertThat(cq.awaitNotification(60, TimeUnit.SECONDS)).isFalse();
        assertThat(cq.awaitNotification(1, TimeUnit.MILLISECONDS)).as("the wake-up was consumed").isFalse();
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> cq.awaitNotification(60, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    }

    @Test
    void aWakeupAfterCloseWritesNothing() {
        FfmCompletionQueue other = new FfmCompletionQueue(device, 4, new CompletionDecoder(table), gone -> { });
        other.close();
        other.wakeup(); // the eventfd is closed: a write now could land in whatever the kernel gave its number to
        other.close();
    }

    private void add(long wrId, int status, int opcode, int byteLen, boolean solicited) throws Throwable {
        MemorySegment raw = MemorySegment.ofAddress(cq.cq().address());
        int rc = (int) complete.invokeExact(raw, wrId, status, opcode, byteLen, 9, solicited ? 1 : 0);
        assertThat(rc).isZero();
    }
}
