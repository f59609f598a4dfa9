package io.reactorrdma.verbs.ffm.rdmacore;

import io.reactorrdma.verbs.ffm.testing.EmulatedRdmaCore;
import io.reactorrdma.verbs.ffm.abi.VerbsConstants;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Completion queues and their channel through FFM, on the emulated libibverbs: polling through the context's
 * operation table, and the arming rules of an RNIC — armed solicited-only, unsolicited receives and send completions
 * raise no event, a solicited receive or an error does; an arm is spent by one event. Completions are added with the
 * emulation's {@code emu_complete}, as its queue pairs will.
 */
class CompletionQueueTest {

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

    @TempDir
    Path dir;

    private Arena arena;
    private RdmaDevice device;
    private RdmaCompletionChannel channel;
    private RdmaCq cq;
    private MethodHandle complete;
    private MethodHandle pollFd;

    @BeforeEach
    void open() throws Exception {
        Path so = EmulatedRdmaCore.build(dir);
        arena = Arena.ofConfined();
        device = Libibverbs.open(Optional.of(so), arena).openDevice("emu0");
        channel = device.createCompletionChannel();
        cq = device.createCq(64, channel);
        Linker linker = Linker.nativeLinker();
        complete = linker.downcallHandle(SymbolLookup.libraryLookup(so, arena).find("emu_complete").orElseThrow(),
                FunctionDescriptor.of(INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, INT, INT, INT, INT, INT));
        pollFd = linker.downcallHandle(linker.defaultLookup().find("poll").orElseThrow(),
                FunctionDescriptor.of(INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, INT));
    }

    @AfterEach
    void close() {
        cq.close();
        channel.close();
        device.close();
        arena.close();
    }

    @Test
    void pollReturnsCompletionsInOrderWithTheirFields() throws Throwable {
        MemorySegment wcs = RdmaCq.completions(arena, 16);
        assertThat(cq.poll(wcs, 16)).isZero();
        add(7, VerbsConstants.IBV_WC_SUCCESS, VerbsConstants.IBV_WC_SEND, 0, false);
        add(8, VerbsConstants.IBV_WC_SUCCESS, VerbsConstants.IBV_WC_RECV, 4096, false);
        add(9, VerbsConstants.IBV_WC_REM_ACCESS_ERR, VerbsConstants.IBV_WC_RDMA_READ, 0, false);
        assertThat(cq.poll(wcs, 2)).isEqualTo(2);
        assertThat(WorkCompletions.wrId(wcs, 0)).isEqualTo(7);
        assertThat(WorkCompletions.opcode(wcs, 0)).isEqualTo(VerbsConstants.IBV_WC_SEND);
        assertThat(WorkCompletions.wrId(wcs, 1)).isEqualTo(8);
        assertThat(WorkCompletions.byteLen(wcs, 1)).isEqualTo(4096);
        assertThat(WorkCompletions.qpNum(wcs, 1)).isEqualTo(42);
        assertThat(cq.poll(wcs, 16)).isEqualTo(1);
        assertThat(WorkCompletions.status(wcs, 0)).isEqualTo(VerbsConstants.IBV_WC_REM_ACCESS_ERR);
        assertThat(cq.poll(wcs, 16)).isZero();
    }

    @Test
    void armedSolicitedOnlyTenThousandUnsolicitedCompletionsRaiseNoEvent() throws Throwable {
        MemorySegment wcs = RdmaCq.completions(arena, 64);
        cq.requestNotification(true);
        for (int i = 0; i < 10_000; i++) {
            add(i, VerbsConstants.IBV_WC_SUCCESS, i % 2 == 0 ? VerbsConstants.IBV_WC_RECV : VerbsConstants.IBV_WC_SEND, 64,
                    false);
            add(i, VerbsConstants.IBV_WC_SUCCESS, VerbsConstants.IBV_WC_SEND, 0, true); // a send is never an event
            if (i % 16 == 15) {
                cq.poll(wcs, 64);
            }
        }
        assertThat(readable()).as("event raised by unsolicited completions").isFalse();
        add(10_000, VerbsConstants.IBV_WC_SUCCESS, VerbsConstants.IBV_WC_RECV_RDMA_WITH_IMM, 0, true);
        assertThat(readable()).as("event of a solicited receive").isTrue();
        assertThat(channel.awaitEvent()).isEqualTo(cq.address());
        cq.ackEvents(1);
    }

    @Test
    void armedSolicitedOnlyAnErrorRaisesAnEvent() throws Throwable {
        cq.requestNotification(true);
        add(1, VerbsConstants.IBV_WC_WR_FLUSH_ERR, VerbsConstants.IBV_WC_SEND, 0, false);
        assertThat(readable()).isTrue();
        assertThat(channel.awaitEvent()).isEqualTo(cq.address());
        cq.ackEvents(1);
    }

    @Test
    void armedForAnyCompletionASendRaisesOneEventAndTheArmIsSpent() throws Throwable {
        cq.requestNotification(false);
        add(1, VerbsConstants.IBV_WC_SUCCESS, VerbsConstants.IBV_WC_SEND, 0, false);
        assertThat(channel.awaitEvent()).isEqualTo(cq.address());
        cq.ackEvents(1);
        add(2, VerbsConstants.IBV_WC_SUCCESS, VerbsConstants.IBV_WC_RECV, 0, true);
        assertThat(readable()).as("event after the arm was spent").isFalse();
        cq.requestNotification(true);
        add(3, VerbsConstants.IBV_WC_SUCCESS, VerbsConstants.IBV_WC_RECV, 0, true);
        assertThat(readable()).isTrue();
    }

    @Test
    void notArmedNothingRaisesAnEvent() throws Throwable {
        add(1, VerbsConstants.IBV_WC_GENERAL_ERR, VerbsConstants.IBV_WC_RECV, 0, true);
        assertThat(readable()).isFalse();
    }

    private void add(long wrId, int status, int opcode, int byteLen, boolean solicited) throws Throwable {
        int rc = (int) complete.invokeExact(MemorySegment.ofAddress(cq.address()), wrId, status, opcode, byteLen, 42,
                solicited ? 1 : 0);
        assertThat(rc).as("emu_complete: the CQ overran").isZero();
    }

    /** Whether the channel's descriptor is readable now (poll(2) with no wait). */
    private boolean readable() throws Throwable {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment pfd = call.allocate(8); // struct pollfd { int fd; short events; short revents; }
            pfd.set(INT, 0, channel.fd());
            pfd.set(ValueLayout.JAVA_SHORT, 4, (short) 1); // POLLIN
            int n = (int) pollFd.invokeExact(pfd, 1L, 0);
            return n == 1;
        }
    }
}
