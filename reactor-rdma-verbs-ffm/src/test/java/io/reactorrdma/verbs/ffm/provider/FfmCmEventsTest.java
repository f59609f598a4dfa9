package io.reactorrdma.verbs.ffm.provider;

import io.reactorrdma.verbs.QpAttributes;
import io.reactorrdma.verbs.QpState;
import io.reactorrdma.verbs.VerbsException;
import io.reactorrdma.verbs.VerbsFixture;
import io.reactorrdma.verbs.ffm.abi.VerbsConstants;
import io.reactorrdma.verbs.ffm.testing.EmulatedRdmaCore;
import io.reactorrdma.verbs.work.WcStatus;
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
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Connection-manager events the kernel raises on its own, injected into the emulated rdma-core: an address change
 * leaves the connection up; a device removal ends the connection with a reason that says what to do, flushes the
 * queue pair's work and closes the context (every later call says the device is gone).
 */
class FfmCmEventsTest {

    @TempDir
    Path dir;

    @Test
    void anAddressChangeLeavesTheConnectionUpAndADeviceRemovalEndsItAndTheContext() throws Throwable {
        Path so = EmulatedRdmaCore.build(dir);
        FfmSettings settings = new FfmSettings(Optional.of(so), Optional.of(so), "127.0.0.1", FfmSettings.DEFAULT_MAX_INLINE);
        try (Arena arena = Arena.ofShared();
             VerbsFixture f = new VerbsFixture(FfmContext.open(settings), FfmContext.open(settings), QpAttributes::create)) {
            MethodHandle inject = Linker.nativeLinker().downcallHandle(
                    SymbolLookup.libraryLookup(so, arena).find("emu_inject_cm_event").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
            MemorySegment idA = MemorySegment.ofAddress(((FfmConnection) f.connA).id().address());

            assertThat((int) inject.invokeExact(idA, VerbsConstants.RDMA_CM_EVENT_ADDR_CHANGE)).isZero();
            f.postRecv(f.qpB, f.mrB, 1, 0, 64);
            VerbsFixture.post(f.qpA, VerbsFixture.send(1, f.mrA, 0, 8));
            assertThat(f.awaitOne(f.cqB).isSuccess()).as("still connected after ADDR_CHANGE").isTrue();
            assertThat(f.connA.isConnected()).isTrue();

            f.postRecv(f.qpA, f.mrA, 7, 0, 64);
            f.postRecv(f.qpB, f.mrB, 2, 64, 64);
            assertThat((int) inject.invokeExact(idA, VerbsConstants.RDMA_CM_EVENT_DEVICE_REMOVAL)).isZero();
            assertThat(f.connA.onDisconnect().get(20, TimeUnit.SECONDS)).contains("was removed", "opened again");
            assertThat(f.qpA.state()).isIn(QpState.ERROR, QpState.DESTROYED);
            assertThatThrownBy(() -> f.ctxA.allocPd()).isInstanceOf(VerbsException.class).hasMessageContaining("was removed");
            assertThat(f.connB.onDisconnect().get(20, TimeUnit.SECONDS)).contains("disconnected by the peer");
            assertThat(f.awaitOne(f.cqB).status()).as("the peer's receive is flushed").isEqualTo(WcStatus.WR_FLUSH_ERR);
        }
    }
}
