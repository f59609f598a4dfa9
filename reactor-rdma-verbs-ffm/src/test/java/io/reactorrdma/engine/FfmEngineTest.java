package io.reactorrdma.engine;

import io.reactorrdma.config.IdleStrategy;
import io.reactorrdma.engine.EnginePullRendezvousTest.Bounds;
import io.reactorrdma.engine.EnginePullRendezvousTest.Checker;
import io.reactorrdma.engine.EnginePullRendezvousTest.Server;
import io.reactorrdma.verbs.ffm.testing.FfmOnTheEmulation;
import io.reactorrdma.verbs.provider.Providers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static io.reactorrdma.engine.EnginePullRendezvousTest.MIB;
import static io.reactorrdma.engine.EnginePullRendezvousTest.WAIT;
import static io.reactorrdma.engine.EnginePullRendezvousTest.awaitTrue;
import static io.reactorrdma.engine.EnginePullRendezvousTest.message;
import static io.reactorrdma.engine.EnginePullRendezvousTest.pullConfig;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine on the {@code ffm} provider over the emulated rdma-core: the soft provider's pull-rendezvous mix (eager,
 * READ and WRITE rendezvous, 8 KiB to 16 MiB, CRC-checked, in socket order, within the READ limit, the send window and
 * the pull budget), a receiver's socket that ends while large messages are being pulled, and a teardown with READs in
 * flight and sources exposed. The emulation has no fault hooks, so what is in flight at a close is what timing leaves;
 * the soft provider's tests hold completions back deterministically.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@ExtendWith(FfmOnTheEmulation.class)
class FfmEngineTest {

    final Bounds bounds = new Bounds();

    @AfterEach
    void clearObserver() {
        Engine.readObserver = null;
    }

    @Test
    void crcCheckedMessagesOf8KiBTo16MiBArriveInSocketOrderOverPull() throws Exception {
        EnginePullRendezvousTest.crcCheckedMixInSocketOrder(() -> Providers.open("ffm"), bounds);
    }

    @Test
    void aReceiverSocketThatEndsMidPullReleasesItsSourcesAndTheConnectionGoesOn() throws Exception {
        Engine.readObserver = bounds;
        Server server = new Server();
        try (EngineHarness h = new EngineHarness(() -> Providers.open("ffm"), pullConfig(), IdleStrategy.BLOCK, server)) {
            EngineSocket a = h.client.openSocket(h.address(), WAIT).get(30, TimeUnit.SECONDS);
            Checker ca = server.next();
            for (int i = 0; i < 4; i++) {
                assertThat(a.offer(message(a.allocateRemoteReadable(4 * MIB), 4 * MIB, i))).isTrue();
            }
            awaitTrue(() -> bounds.posts.get() > 0, () -> "a READ posted");
            h.server.execute(() -> ca.socket.engine.closeSocket(ca.socket, null, true));
            assertThat(ca.closed.get(30, TimeUnit.SECONDS)).isNull();
            awaitTrue(() -> h.clientMemory.readableLiveBuffers() == 0, () -> "every source released ("
                    + h.clientMemory.readableLiveBuffers() + " live)");
            EngineSocket b = h.client.openSocket(h.address(), WAIT).get(30, TimeUnit.SECONDS);
            Checker cb = server.next();
            assertThat(b.offer(message(b.allocateRemoteReadable(MIB), MIB, 7))).isTrue();
            awaitTrue(() -> cb.received.get() == 1, () -> "a message on a new socket");
            assertThat(cb.errors).isEmpty();
            assertThat(ca.errors).isEmpty();
            assertThat(bounds.violations).isEmpty();
            b.close();
        }
    }

    @Test
    void teardownWithPullsInFlightLeavesNoBuffer() throws Exception {
        Engine.readObserver = bounds;
        Server server = new Server();
        EngineHarness h = new EngineHarness(() -> Providers.open("ffm"), pullConfig(), IdleStrategy.BLOCK, server);
        try {
            EngineSocket a = h.client.openSocket(h.address(), WAIT).get(30, TimeUnit.SECONDS);
            server.next();
            for (int i = 0; i < 4; i++) {
                assertThat(a.offer(message(a.allocateRemoteReadable(4 * MIB), 4 * MIB, i))).isTrue();
                assertThat(a.offer(message(h.clientMemory.byteBufAllocator().directBuffer(MIB), MIB, 100 + i))).isTrue();
            }
            awaitTrue(() -> bounds.posts.get() > 0, () -> "a READ posted");
        } finally {
            h.close(); // both domains close mid-transfer; asserts 0 live buffers on both sides
        }
        assertThat(h.clientMemory.liveBuffers()).isZero();
        assertThat(h.serverMemory.liveBuffers()).isZero();
        assertThat(bounds.violations).isEmpty();
    }
}
